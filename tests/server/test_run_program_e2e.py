"""End to end: one Test Explorer item runs one program (`prism/runProgram`), at the reveal level.

The buffer as it is now runs on the item's program (or one test on it) and the answer is that
item; the document's own check (status, lenses, the other items) stays the whole panel's.
Below `full` nothing runs alone that the level does not show one by one.
"""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.server.harness import FAST, FIXTURES, _plain, open_doc, replace_all

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


async def _request(client, method: str, params: dict):
    return _plain(await client.protocol.send_request_async(method, params))


async def _items(client, uri) -> tuple[int | None, dict[str, dict]]:
    answer = await _request(client, "prism/programs", {"uri": uri})
    return answer["version"], {item["id"]: item for item in answer["items"]}


async def _opened(client):
    uri = open_doc(client, OVERFIT)
    await client.recorder.final_diagnostics(uri, 1)
    return uri


@pytest.mark.settings({**FAST, "runOn": "save"})
async def test_one_item_runs_the_buffer_as_it_is_on_that_program_alone(client):
    uri = await _opened(client)
    _, items = await _items(client, uri)
    assert items["half-even"]["passed"] is False  # rounds 2.5 to 2: test_halfway rejects it
    # Unsaved (runs wait for a save): the item runs the buffer, the panel does not run.
    replace_all(
        client, uri, 2, OVERFIT.read_text().replace("mean_rounded([1, 4]) == 3", "mean_rounded([1, 4]) in (2, 3)")
    )
    answer = await _request(client, "prism/runProgram", {"uri": uri, "program": "half-even"})
    item = answer["item"]
    assert answer["version"] == 2 and item["id"] == "half-even" and item["label"] == "half-even (valid)"
    assert item["passed"] is True and item["kind"] == "valid"
    assert [t["name"] for t in item["tests"]] == ["test_whole_mean", "test_rounds_to_nearest", "test_halfway"]
    version, after = await _items(client, uri)
    assert version == 1 and after["half-even"]["passed"] is False, "the document's check is still the panel's"


async def test_one_test_runs_on_one_program_with_its_values(client):
    uri = await _opened(client)
    answer = await _request(client, "prism/runProgram", {"uri": uri, "program": "half-even", "test": "test_halfway"})
    [test] = answer["item"]["tests"]
    assert (test["name"], test["outcome"], test["expected"], test["actual"]) == ("test_halfway", "fail", "3", "2")
    initial = await _request(client, "prism/runProgram", {"uri": uri, "program": "initial"})
    assert initial["item"]["id"] == "initial" and initial["item"]["passed"] is True  # the suite fails there


@pytest.mark.settings({**FAST, "reveal": "labels"})
async def test_at_labels_an_item_runs_under_its_anonymous_name_and_no_test_runs_alone(client):
    uri = await _opened(client)
    _, items = await _items(client, uri)
    rejected = next(item for item in items.values() if item["kind"] == "valid" and not item["passed"])
    assert rejected["id"].startswith("valid-")
    answer = await _request(client, "prism/runProgram", {"uri": uri, "program": rejected["id"]})
    same = {k: answer["item"][k] for k in ("id", "label", "passed", "message", "kind", "tests")}
    assert same == {k: rejected[k] for k in same}
    assert "half-even" not in str(answer)
    with pytest.raises(JsonRpcException, match="not listed program by program"):
        await _request(client, "prism/runProgram", {"uri": uri, "program": rejected["id"], "test": "test_halfway"})
    with pytest.raises(JsonRpcException, match="no program 'half-even'"):
        await _request(client, "prism/runProgram", {"uri": uri, "program": "half-even"})


@pytest.mark.settings({**FAST, "reveal": "counts"})
async def test_at_counts_no_candidate_runs_alone(client):
    uri = await _opened(client)
    for program in ("valid", "invalid", "candidate-1", "half-even"):
        with pytest.raises(JsonRpcException, match="not shown one by one"):
            await _request(client, "prism/runProgram", {"uri": uri, "program": program})
    answer = await _request(client, "prism/runProgram", {"uri": uri, "program": "initial"})
    assert answer["item"]["passed"] is True and answer["item"]["tests"] == []


async def test_an_accepted_invalid_candidate_comes_back_with_the_input_that_tells_it_apart(client):
    uri = await _opened(client)
    _, items = await _items(client, uri)
    accepted = [item for item in items.values() if item["kind"] == "invalid" and not item["passed"]]
    assert accepted, "test_overfit lets invalid candidates through"
    answer = await _request(client, "prism/runProgram", {"uri": uri, "program": accepted[0]["id"]})
    witness = answer["item"]["witness"]
    assert witness["call"].startswith("mean_rounded(") and witness["expected"] != witness["got"], witness

"""End to end: candidates as read-only `prism-candidate:` documents, served by the server from the
digest-verified tree cache, at reveal `full` only; related information points there."""

from __future__ import annotations

import attrs
import pytest
import pytest_lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.server.harness import CACHE, FAST, FIXTURES, _plain, init_params, of_kind, open_doc, server_config

TASK = FIXTURES / "mean-rounded"
OVERFIT = TASK / "suites" / "test_overfit.py"


async def _start(lsp_client: LanguageClient, options: dict) -> None:
    params = init_params(options)
    params = attrs.evolve(
        params, capabilities=attrs.evolve(params.capabilities, experimental={"prismCandidateDocuments": True})
    )
    await lsp_client.initialize_session(params)


@pytest_lsp.fixture(config=server_config(CACHE))
async def documents_client(lsp_client: LanguageClient):
    await _start(lsp_client, FAST)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=server_config(CACHE))
async def labels_client(lsp_client: LanguageClient):
    await _start(lsp_client, {**FAST, "reveal": "labels"})
    yield
    await lsp_client.shutdown_session()


async def _request(client: LanguageClient, method: str, params: dict):
    return _plain(await client.protocol.send_request_async(method, params))


async def test_a_candidate_opens_as_read_only_documents_against_the_initial_program(documents_client):
    client = documents_client
    uri = open_doc(client, OVERFIT)
    view = await _request(client, "prism/candidate", {"uri": uri, "id": "half-even"})
    assert view["title"] == "half-even (valid)" and view["label"] == "valid"
    [changed] = view["files"]
    assert changed["path"] == "solution.py"
    assert changed["candidate"].startswith("prism-candidate:/half-even/solution.py?doc=")
    assert changed["initial"].startswith("prism-candidate:/initial/solution.py?doc=")
    candidate = (await _request(client, "prism/candidateFile", {"uri": changed["candidate"]}))["text"]
    initial = (await _request(client, "prism/candidateFile", {"uri": changed["initial"]}))["text"]
    assert initial == (TASK / "initial" / "solution.py").read_text()
    assert candidate != initial and "def mean_rounded" in candidate
    with pytest.raises(JsonRpcException, match="not a candidate document"):
        await _request(client, "prism/candidateFile", {"uri": changed["candidate"].replace("solution.py", "../x")})


async def test_related_information_points_at_candidate_documents(documents_client):
    client = documents_client
    uri = open_doc(client, OVERFIT)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    related = [r.location.uri for d in of_kind(diags, "rejects-valid") for r in d.related_information or []]
    assert related and all(u.startswith("prism-candidate:/") for u in related)
    text = (await _request(client, "prism/candidateFile", {"uri": related[0]}))["text"]
    assert "def mean_rounded" in text


async def test_below_full_no_candidate_document_is_served(labels_client):
    client = labels_client
    uri = open_doc(client, OVERFIT)
    with pytest.raises(JsonRpcException, match="not revealed"):
        await _request(client, "prism/candidate", {"uri": uri, "id": "half-even"})
    doc = f"prism-candidate:/half-even/solution.py?doc={uri}"
    with pytest.raises(JsonRpcException, match="not revealed"):
        await _request(client, "prism/candidateFile", {"uri": doc})


async def test_the_programs_of_the_last_run_as_test_items(documents_client):
    client = documents_client
    uri = open_doc(client, OVERFIT)
    await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    answer = await _request(client, "prism/programs", {"uri": uri})
    items = {i["id"]: i for i in answer["items"]}
    assert answer["version"] == 1 and len(items) == 11
    assert items["initial"]["passed"] is True and items["reference"]["passed"] is True
    assert items["half-even"]["passed"] is False and items["half-even"]["line"] == 14
    assert (items["half-even"]["expected"], items["half-even"]["actual"]) == ("3", "2")


async def test_the_kill_matrix_at_full_and_not_below(documents_client, labels_client):
    for client, revealed in ((documents_client, True), (labels_client, False)):
        uri = open_doc(client, OVERFIT)
        await client.recorder.final_diagnostics(uri, 1)
        if not revealed:
            with pytest.raises(JsonRpcException, match="reveal = full"):
                await _request(client, "prism/matrix", {"uri": uri})
            continue
        matrix = (await _request(client, "prism/matrix", {"uri": uri}))["matrix"]
        ids = [p["id"] for p in matrix["programs"]]
        halfway = dict(zip(ids, matrix["cells"][[t["name"] for t in matrix["tests"]].index("test_halfway")]))
        assert halfway["half-even"] == {"outcome": "fail", "line": 14} and halfway["reference"]["outcome"] == "pass"

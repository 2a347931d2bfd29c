"""`prism mcp` driven by the official MCP SDK's client over stdio, on the real engine and sandbox.

What an agent in a loop relies on: over-specification and under-assertion come back apart, with
the metrics; the reveal level is the one the server was started with (default `sealed`) and no
tool argument raises it; untrusted paths are refused with a message, never served.
"""

from __future__ import annotations

import json

import pytest
from mcp import Client

from tests.conftest import FIXTURES
from tests.mcp_server.mcp_client import call_tool, server_params, tool_text

MEAN = FIXTURES / "mean-rounded"
SLUG = FIXTURES / "slugify"


@pytest.mark.asyncio
async def test_overfit_suite_at_full_names_the_line_and_keeps_signals_apart(tmp_path):
    async with Client(server_params(tmp_path, "--reveal", "full")) as client:
        listed = (await client.list_tools()).tools
        tools = {t.name for t in listed}
        assert {"run_suite", "list_tasks"} <= tools
        # Agents' clients may run read-only, idempotent, closed-world tools without asking each time.
        for tool in listed:
            hints = tool.annotations
            assert (hints.read_only_hint, hints.idempotent_hint, hints.open_world_hint) == (True, True, False), (
                tool.name
            )
        got = await call_tool(client, "run_suite", {"task": "mean-rounded", "suite_path": "suites/test_overfit.py"})
    assert got["reveal"] == "full"
    assert got["metrics"]["detects_baseline"] is True and got["metrics"]["jsf"] is False
    assert [o["line"] for o in got["over_specification"]] == [14]
    assert got["over_specification"][0]["valid_rejected"] == 3
    assert "half-even" in got["over_specification"][0]["message"]
    assert got["under_assertion"] and all(u["invalid_accepted"] >= 1 for u in got["under_assertion"])
    assert (got["valid_accepted"], got["valid_total"]) == (1, 4)


@pytest.mark.asyncio
async def test_default_reveal_is_sealed_and_no_argument_raises_it(tmp_path):
    async with Client(server_params(tmp_path)) as client:
        got = await call_tool(
            client, "run_suite", {"task": str(MEAN), "suite_path": "suites/test_overfit.py", "reveal": "full"}
        )  # an extra argument the tool does not have
        tasks = await call_tool(client, "list_tasks", {})
        suggested = await call_tool(
            client, "list_suggestions", {"task": "mean-rounded", "suite_path": "suites/test_overfit.py"}
        )
    assert got["reveal"] == "sealed" and got["initial_outcome"] == "fail"
    # Only the initial program's outcome: no rate, RAR, JSF or count that depends on the panel.
    assert got["metrics"] == {
        "detects_baseline": True,
        "rar": None,
        "jsf": None,
        "valid_acceptance": None,
        "invalid_rejection": None,
        "h": None,
    }
    assert [got[k] for k in ("valid_accepted", "valid_total", "invalid_rejected", "invalid_total")] == [None] * 4
    assert got["over_specification"] == [] and got["under_assertion"] == []
    assert all(f["kind"] == "weak-assertion" for f in got["other_findings"])
    dumped = json.dumps(got)
    for secret in ("half-even", "half-down", "statistics", "trunc-negative", "consumes-input"):
        assert secret not in dumped
    mine = next(t for t in tasks["result"] if t["task"] == "mean-rounded")
    assert all(t["reveal"] == "sealed" for t in tasks["result"]) and (mine["valid"], mine["invalid"]) == (None, None)
    assert suggested["suggestions"] == [] and "sealed" in suggested["note"]


@pytest.mark.asyncio
async def test_suite_text_runs_at_its_path_and_a_strong_suite_reaches_joint_success(tmp_path):
    strong = (MEAN / "suites" / "test_strong.py").read_text()
    async with Client(server_params(tmp_path, "--reveal", "counts")) as client:
        got = await call_tool(
            client, "run_suite", {"task": "mean-rounded", "suite_text": strong, "suite_rel": "tests/test_mine.py"}
        )
    assert got["suite"] == "tests/test_mine.py"
    assert got["metrics"]["jsf"] is True and got["over_specification"] == [] and got["under_assertion"] == []


@pytest.mark.asyncio
async def test_weak_suite_under_assertion_says_how_many_got_through(tmp_path):
    async with Client(server_params(tmp_path, "--reveal", "labels")) as client:
        got = await call_tool(client, "run_suite", {"task": "slugify", "suite_path": "suites/test_weak.py"})
    assert got["over_specification"] == []
    assert (got["invalid_rejected"], got["invalid_total"]) == (1, 5)
    # One entry for the 4 let through, on the first test reaching them (three do: said once, issue 23).
    assert [(u["line"], u["invalid_accepted"], u["reached"]) for u in got["under_assertion"]] == [(4, 4, True)]
    assert [f["kind"] for f in got["other_findings"]] == ["weak-assertion"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "args, says",
    [
        ({"task": "/etc", "suite_path": "passwd"}, "outside the folders"),
        ({"task": "mean-rounded", "suite_path": "../slugify/suites/test_weak.py"}, "outside the task folder"),
        ({"task": "mean-rounded", "suite_path": "/etc/passwd"}, "outside the task folder"),
        ({"task": "mean-rounded", "suite_text": "def test_x(): pass", "suite_rel": "../../x.py"}, "suite_rel"),
        ({"task": "mean-rounded"}, "either suite_path"),
        ({"task": "no-such-task", "suite_path": "x.py"}, "no prism.toml"),
    ],
)
async def test_untrusted_paths_are_refused_with_a_message(tmp_path, args, says):
    async with Client(server_params(tmp_path)) as client:
        result = await client.call_tool("run_suite", args)
    assert result.is_error
    assert says in tool_text(result)


@pytest.mark.asyncio
async def test_suggestions_at_labels_are_verified_and_name_no_candidate(tmp_path):
    async with Client(server_params(tmp_path, "--reveal", "labels")) as client:
        got = await call_tool(client, "list_suggestions", {"task": "mean-rounded", "suite_path": "suites/test_weak.py"})
        judged = await call_tool(client, "run_suite", {"task": "mean-rounded", "suite_path": "suites/test_weak.py"})
    assert got["reveal"] == "labels" and got["suggestions"]
    for s in got["suggestions"]:
        v = s["verified"]
        assert v["valid_accepted"] == v["valid_total"] and v["detects_baseline"] is True
        assert s["diff"].startswith("--- ")
    witnesses = [u["witness"] for u in judged["under_assertion"] if u["witness"]]
    assert witnesses and all(set(w["got"]) <= {f"invalid-{i}" for i in range(1, 6)} for w in witnesses)
    dumped = json.dumps([got, judged])
    for secret in ("trunc-negative", "consumes-input", "half-even"):
        assert secret not in dumped


@pytest.mark.asyncio
async def test_no_suggestion_witness_or_line_at_counts(tmp_path):
    async with Client(server_params(tmp_path, "--reveal", "counts")) as client:
        got = await call_tool(client, "list_suggestions", {"task": "mean-rounded", "suite_path": "suites/test_weak.py"})
        judged = await call_tool(client, "run_suite", {"task": "mean-rounded", "suite_path": "suites/test_weak.py"})
    assert got["suggestions"] == [] and "counts" in got["note"]
    # Whole-suite numbers only: the invalid candidates let through are counted, on no line.
    assert judged["under_assertion"] == [] and judged["over_specification"] == []
    assert judged["invalid_rejected"] < judged["invalid_total"]

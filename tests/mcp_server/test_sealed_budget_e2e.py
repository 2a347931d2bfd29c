"""`prism mcp` against the adaptive author of issue 21, and the operator's run budget, over stdio
with the official MCP SDK's client on the real engine and sandbox.

At `counts` the judgement is the same whichever test flags which candidate (no line, test or
assertion of a candidate's run); the budget (`--budget N`) is counted in the cache folder, so a
restarted server keeps it, and a spent budget refuses with a message before anything runs.
"""

from __future__ import annotations

import pytest
from mcp import Client

from tests.mcp_server.mcp_client import call_tool, server_params, tool_text
from tests.surface.buckets import bucket_task, write_suites


def _server(tmp_path, root, *extra):
    params = server_params(tmp_path, *extra)
    params.args[params.args.index("--root") + 1] = str(root)
    return params


@pytest.mark.asyncio
async def test_at_counts_the_judgement_is_the_same_whichever_test_flags_which_candidate(tmp_path):
    task = bucket_task(tmp_path / "tasks" / "buckets")
    write_suites(task)
    async with Client(_server(tmp_path, tmp_path / "tasks", "--reveal", "counts")) as client:
        shown = [
            await call_tool(client, "run_suite", {"task": "buckets", "suite_path": suite})
            for suite in ("test_buckets.py", "test_buckets_shifted.py")
        ]
    for got in shown:
        assert got["reveal"] == "counts" and got["metrics"]["jsf"] is False
        assert got["over_specification"] == [] and got["under_assertion"] == [] and got["other_findings"] == []
        assert (got["valid_accepted"], got["valid_total"], got["invalid_rejected"]) == (0, 2, 3)
    assert {k: v for k, v in shown[0].items() if k != "suite"} == {k: v for k, v in shown[1].items() if k != "suite"}


@pytest.mark.asyncio
async def test_the_run_budget_holds_across_a_restart_of_the_server(tmp_path):
    task = bucket_task(tmp_path / "tasks" / "buckets")
    write_suites(task)
    args = {"task": "buckets", "suite_path": "test_buckets.py"}
    async with Client(_server(tmp_path, tmp_path / "tasks", "--budget", "2")) as client:
        first = await call_tool(client, "run_suite", args)
        listed = await call_tool(client, "list_tasks", {})
        second = await call_tool(client, "run_suite", args)
        spent = await client.call_tool("run_suite", args)
    assert (first["runs_left"], listed["result"][0]["runs_left"], second["runs_left"]) == (1, 1, 0)
    assert spent.is_error and "run budget (2 runs) is spent" in tool_text(spent)
    # A new server on the same cache folder (the operator's), even with a larger budget, counts on.
    async with Client(_server(tmp_path, tmp_path / "tasks", "--budget", "3")) as client:
        third = await call_tool(client, "run_suite", {"task": "buckets", "suite_text": "def test_x():\n    pass\n"})
        again = await client.call_tool("run_suite", args)
    assert third["runs_left"] == 0
    assert again.is_error and "spent" in tool_text(again)

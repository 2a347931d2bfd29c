"""`prism mcp`'s `run_suite` gives the suite's ΔC and entry coverage on the reference: with per-test
numbers and lines at `full`, the numbers only at `counts`, nothing at `sealed` (the default)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.engine.coverage_suites import CART_SUITE
from tests.mcp_server.mcp_client import call_tool, server_params

ARGS = {"task": "cart-total", "suite_text": CART_SUITE, "suite_rel": "suites/test_counted.py"}


@pytest.mark.asyncio
@pytest.mark.parametrize("reveal", ["full", "counts", "sealed"])
async def test_run_suite_gives_coverage_as_the_level_shows_it(tmp_path, reveal):
    async with Client(server_params(tmp_path, "--reveal", reveal)) as client:
        got = await call_tool(client, "run_suite", ARGS)
    dc, entry = got["change_coverage"], got["entry_coverage"]
    if reveal == "sealed":
        assert dc is None and entry is None
        return
    assert (dc["reached"], dc["total"], entry["reached"], entry["total"]) == (5, 6, 8, 8)
    if reveal == "full":
        assert dc["tests"] == {"test_empty": 3, "test_one": 5}
        assert dc["missed"] == {"shop/pricing.py": [14]}
    else:
        assert dc["tests"] == {} and dc["lines"] == {} and dc["missed"] == {}

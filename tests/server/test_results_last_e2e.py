"""A restarted real server (`python -m prism_lsp`, pytest-lsp) reads the suite's results back from
the disk cache it shares with the CLI: `3 test(s) run, 0 from cache`, then `0 test(s) run, 3 from
cache`, and the same diagnostics."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.server.harness import FAST, FIXTURES, init_params, open_doc, server_config

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


async def _one_server(cache: Path) -> tuple[str, list]:
    """Start a server on `cache` (results kept on disk), check the suite once; (status message, diagnostics)."""
    client = await server_config(cache, env={"PRISM_NO_CACHE": ""}).start()
    try:
        await client.initialize_session(init_params(FAST))
        uri = open_doc(client, OVERFIT)
        diags = await client.recorder.final_diagnostics(uri, 1)
        idle = await client.recorder.until(
            lambda: next((s for s in client.recorder.statuses if s["uri"] == uri and s["state"] == "idle"), None)
        )
        await client.shutdown_session()
    finally:
        await client.stop()
    return idle["message"], sorted((d.code, d.range.start.line, d.message) for d in diags)


async def test_a_restarted_server_takes_the_results_from_disk():
    with tempfile.TemporaryDirectory(prefix="prism-lsp-results-") as tmp:
        cache = Path(tmp)
        first, diags = await _one_server(cache)
        assert first == "3 test(s) run, 0 from cache"
        again, diags_again = await _one_server(cache)
        assert again == "0 test(s) run, 3 from cache"
        assert diags_again == diags and any(code == "rejects-valid" for code, _, _ in diags)

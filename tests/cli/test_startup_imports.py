"""`prism run` starts its runners before it loads what only the run itself needs: loading the
command line never imports Hypothesis (witness search), the MCP server, or the panel and report
models (measured: a cold `prism run` 836 -> 703 ms median, `bench/panel_speed.py`'s cold row)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("hypothesis", "mcp", "prism_lsp.model.report", "prism_lsp.engine.panel", "prism_lsp.witness.strategies")


def test_loading_the_command_line_leaves_the_heavy_modules_for_later():
    code = (
        "import json, sys; import prism_lsp.cli as cli; cli.build_parser(); "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_the_session_loads_the_panel_modules_only_when_a_run_needs_them():
    code = (
        "import json, sys; from prism_lsp.engine.session import EngineSession; "
        "print(json.dumps(['prism_lsp.engine.panel' in sys.modules, 'prism_lsp.model.report' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False, False]

"""A real editor: Debian's Neovim, headless, with its built-in LSP client and `prism.lua`,
opens a fixture suite; the diagnostics it collected are read back from a JSON file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OVERFIT = ROOT / "fixtures" / "mean-rounded" / "suites" / "test_overfit.py"

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed")


@pytest.mark.slow
def test_neovim_builtin_client_shows_rejects_valid(tmp_path):
    out = tmp_path / "diagnostics.json"
    env = {
        **os.environ,
        "PRISM_PYTHON": sys.executable,
        "PRISM_SUITE": str(OVERFIT),
        "PRISM_OUT": str(out),
        "PRISM_CACHE_DIR": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    subprocess.run(
        ["nvim", "--headless", "--clean", "-u", str(HERE / "prism.lua")],
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    data = json.loads(out.read_text())
    assert data["reason"] == "runtime findings"
    last = data["publications"][-1]
    assert last["uri"].endswith("test_overfit.py") and last["version"] is not None
    rejects = [d for d in last["diagnostics"] if d.get("code") == "rejects-valid"]
    assert [d["range"]["start"]["line"] for d in rejects] == [13]
    assert "half-even" in rejects[0]["message"] and rejects[0]["source"] == "prism"

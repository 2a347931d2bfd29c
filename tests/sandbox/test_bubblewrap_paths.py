"""The bubblewrap sandbox hides /tmp and $HOME; Prism must still work from a checkout under /tmp."""

import json
import os
import shutil
import subprocess
import sys

from tests.conftest import FIXTURES, ROOT


def test_a_checkout_and_cache_under_tmp_still_run_in_bubblewrap(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "prism_lsp", checkout / "prism_lsp", ignore=shutil.ignore_patterns("__pycache__"))
    task = FIXTURES / "slugify"
    code = (
        "import sys; from prism_lsp.cli import prism_main; "
        f"sys.exit(prism_main(['run', {str(task)!r}, {str(task / 'suites' / 'test_strong.py')!r}, "
        "'--json', '--sandbox', 'bubblewrap']))"
    )
    env = {**os.environ, "PYTHONPATH": str(checkout), "PRISM_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    report = json.loads(proc.stdout)
    assert all(c["outcome"] != "error" for c in report["candidates"]), report["candidates"][0]["message"]
    assert proc.returncode == 0 and report["metrics"]["jsf"] is True

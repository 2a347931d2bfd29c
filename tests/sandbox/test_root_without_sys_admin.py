"""As root without CAP_SYS_ADMIN (a devcontainer's or CI container's root; here `setpriv` drops it
from the bounding set), bubblewrap still runs programs as an unprivileged uid that reads no root-only
file. Issue 21, break 7: the launcher needed a mount namespace root cannot make there, and every run
ended "no usable sandbox: ... unshare(CLONE_NEWNS)". tests/docker/test_root_container.py runs the
same task in a real container.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from prism_lsp.sandbox.bubblewrap import probe
from tests.sandbox.root_only import assert_judged_reading_no_root_only_file, root_only_task


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
@pytest.mark.skipif(bool(probe()), reason=f"bubblewrap unavailable: {probe()}")
def test_root_without_cap_sys_admin_runs_the_sandbox_as_an_unprivileged_uid(tmp_path):
    task = root_only_task(tmp_path / "task")
    prism = shutil.which("prism") or pytest.fail("the `prism` console script is not on PATH")
    proc = subprocess.run(
        [
            "setpriv",
            "--bounding-set",
            "-sys_admin",
            "--inh-caps",
            "-sys_admin",
            prism,
            "run",
            "--sandbox",
            "bubblewrap",
            "--json",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(task),
            str(task / "tests" / "test_f.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert_judged_reading_no_root_only_file(json.loads(proc.stdout))

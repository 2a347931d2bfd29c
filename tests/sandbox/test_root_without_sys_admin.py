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
from pathlib import Path

import pytest

from prism_lsp.sandbox.bubblewrap import probe
from tests.conftest import write_task

SUITE = """import os
from solution import f


def test_f():
    assert f() == 2


def test_root_only_files_stay_unreadable():
    assert os.getuid() != 0
    for path in ("/etc/shadow", "/root/prism-secret"):
        try:
            open(path).read()
        except (PermissionError, FileNotFoundError):
            continue
        raise AssertionError("read " + path)
"""


def root_only_task(root: Path) -> Path:
    """A task whose suite checks, in every program, that root-only files cannot be read."""
    return write_task(
        root,
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {"id": "off", "label": "invalid", "files": {"solution.py": "def f():\n    return 3\n"}},
        ],
        suites={"tests/test_f.py": SUITE},
    )


def assert_judged_reading_no_root_only_file(report: dict) -> None:
    assert report["sandbox"] == "bubblewrap"
    verdicts = {c["id"]: c["verdict"] for c in report["candidates"]}
    assert verdicts == {"reference": "accepted", "off": "rejected"}, verdicts
    baseline = {t["name"]: t["outcome"] for t in report["baseline"]["tests"]}
    assert baseline == {"test_f": "fail", "test_root_only_files_stay_unreadable": "pass"}, report["baseline"]


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

"""`prism run` as root in a container without CAP_SYS_ADMIN, where bubblewrap may still make user
namespaces (seccomp and AppArmor unconfined: the usual devcontainer or CI container). Issue 21,
break 7: the launcher that drops root needed a mount namespace root cannot make there, and every run
ended "no usable sandbox: ... unshare(CLONE_NEWNS)".

This Prism, its venv, its interpreter and the host's bwrap are mounted read-only at their own paths
into the local bookworm image (same glibc), so the run takes seconds; `scripts/test-root-container`
(CI) does the same from a fresh setup, with the demo and tests/sandbox.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.sandbox.root_only import assert_judged_reading_no_root_only_file, root_only_task

pytestmark = pytest.mark.docker


def _container_run(docker_image: str, tmp_path: Path, command: str) -> subprocess.CompletedProcess:
    prefix = Path(sys.base_prefix).resolve()
    if prefix == Path("/usr"):
        pytest.skip("the host's Python is the system one: scripts/test-root-container covers this case")
    bwrap = shutil.which("bwrap") or pytest.skip("bubblewrap is not installed on the host")
    mounts = [prefix, ROOT, tmp_path]
    argv = [
        "docker",
        "run",
        "--rm",
        "--security-opt",
        "seccomp=unconfined",
        "--security-opt",
        "apparmor=unconfined",
        "--security-opt",
        "systempaths=unconfined",
        "--cap-drop",
        "SYS_ADMIN",
        "-e",
        "PYTHONDONTWRITEBYTECODE=1",
        "-v",
        f"{bwrap}:/usr/bin/bwrap:ro",
        *[arg for m in mounts for arg in ("-v", f"{m}:{m}:ro")],
        docker_image,
        "sh",
        "-ec",
        command,
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def test_prism_run_as_root_without_cap_sys_admin_judges_and_reads_no_root_only_file(tmp_path, docker_image):
    task = root_only_task(tmp_path / "task")
    prism = ROOT / ".venv" / "bin" / "prism"
    proc = _container_run(
        docker_image,
        tmp_path,
        (
            # Not the case under test when root holds CAP_SYS_ADMIN (bit 21) here.
            'test $(( 0x$(awk "/^CapEff/ {print \\$2}" /proc/self/status) >> 21 & 1 )) = 0\n'
            "echo prism-root-only > /root/prism-secret && chmod 600 /root/prism-secret\n"
            f"{prism} run --sandbox bubblewrap --json --cache-dir /tmp/prism-cache "
            f"{task} {task / 'tests' / 'test_f.py'}\n"
        ),
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert_judged_reading_no_root_only_file(json.loads(proc.stdout))

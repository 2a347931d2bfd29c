"""The seccomp filter per architecture, and `prism doctor` claiming only the filter that runs (issue 21,
break 6: off x86_64 the filter silently disappeared while the doctor still promised it).

The filters are checked by evaluating their BPF programs on seccomp_data as the kernel would (this
machine cannot run aarch64 code); the claim is checked end to end with the real runner, natively and
under `setarch i686`, which makes uname report an architecture Prism has no table for.
"""

import json
import os
import shutil
import struct
import subprocess

import pytest

from prism_lsp.runner import _prism_isolation as iso
from prism_lsp.sandbox.bubblewrap import probe
from prism_lsp.sandbox.guarantees import GUARANTEES, guarantees
from tests.conftest import write_task

EPERM, ENOSYS, ALLOW = 0x00050001, 0x00050026, 0x7FFF0000
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# A 32-bit call on each (i386 through int 0x80; arm compat) and an ordinary call (read).
COMPAT_ARCH = {"x86_64": 0x40000003, "aarch64": 0x40000028}
READ = {"x86_64": 0, "aarch64": 63}
CLONE_NEWUSER = 0x10000000


def verdict(code: bytes, arch: int, nr: int, arg0: int = 0) -> int:
    """What the BPF program `code` returns for one call (seccomp_data: nr, arch, ip, args[6])."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    prog = [struct.unpack_from("HBBI", code, i) for i in range(0, len(code), 8)]
    pc, acc = 0, 0
    for _ in range(len(prog)):  # no backward jumps: each instruction runs at most once
        op, jt, jf, k = prog[pc]
        if op == 0x06:  # ret
            return k
        if op == 0x20:  # ld [k]
            acc, pc = struct.unpack_from("<I", data, k)[0], pc + 1
            continue
        taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
        pc += 1 + (jt if taken else jf)
    raise AssertionError("the filter fell off its end")


def test_aarch64_refuses_the_same_calls_as_x86_64():
    assert set(iso._DENIED["aarch64"]) == set(iso._DENIED["x86_64"]) - iso.X86_ONLY
    assert set(iso._IPC["aarch64"]) == set(iso._IPC["x86_64"])
    for machine in ("x86_64", "aarch64"):
        numbers = [*iso._DENIED[machine].values(), *iso._IPC[machine].values()]
        assert len(numbers) == len(set(numbers)), machine  # no two names on one number
        shared, alone = iso.seccomp_filter(machine, own_ipc=True), iso.seccomp_filter(machine, own_ipc=False)
        arch = AUDIT_ARCH[machine]
        for name, nr in iso._DENIED[machine].items():
            assert verdict(shared, arch, nr) == EPERM and verdict(alone, arch, nr) == EPERM, (machine, name)
        for name, nr in iso._IPC[machine].items():
            assert verdict(alone, arch, nr) == EPERM and verdict(shared, arch, nr) == ALLOW, (machine, name)
        assert verdict(shared, arch, READ[machine]) == ALLOW
        assert verdict(shared, arch, iso._CLONE[machine]) == ALLOW  # fork, threads
        assert verdict(shared, arch, iso._CLONE[machine], CLONE_NEWUSER) == EPERM
        assert verdict(shared, arch, iso._CLONE3[machine]) == ENOSYS
        assert verdict(shared, COMPAT_ARCH[machine], READ[machine]) == EPERM  # 32-bit calls refused whole
    assert iso.seccomp_filter("x86_64", True) != iso.seccomp_filter("aarch64", True)


def test_an_architecture_without_a_table_gets_no_filter_and_the_guarantees_say_so():
    assert iso.seccomp_filter("riscv64", own_ipc=True) is None and iso.seccomp_filter("ppc64le", False) is None
    unfiltered = guarantees(seccomp=False)
    assert guarantees(seccomp=True) == GUARANTEES and set(unfiltered) == set(GUARANTEES)
    text = " ".join(line for lines in unfiltered.values() for line in lines)
    assert "seccomp filter (no ptrace" not in text and "the same seccomp filter" not in text
    for name in ("bubblewrap", "docker"):
        assert any("NO seccomp filter" in line and "x86_64 and aarch64" in line for line in unfiltered[name]), name
    assert "System V IPC and POSIX message queues are NOT refused" in " ".join(unfiltered["docker"])


SECCOMP_SUITE = (
    "def test_the_program_runs_under_a_seccomp_filter():\n"
    "    status = open('/proc/self/status').read()\n"
    "    assert 'Seccomp:\\t2' in status\n"
)


def _prism(*args: str, personality: list[str]) -> subprocess.CompletedProcess:
    prism = shutil.which("prism") or pytest.fail("the `prism` console script is not on PATH")
    return subprocess.run(
        [*personality, prism, *args], capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"}
    )


@pytest.mark.skipif(bool(probe()), reason=f"bubblewrap unavailable: {probe()}")
@pytest.mark.parametrize("personality", [[], ["setarch", "i686"]], ids=["native", "unknown-arch"])
def test_doctor_claims_the_filter_the_real_runner_installed(tmp_path, personality):
    if iso.MACHINE != "x86_64" or (personality and not shutil.which("setarch")):
        pytest.skip("needs an x86_64 machine (and setarch) to run both ways")
    doctor = _prism("doctor", "--json", personality=personality)
    report = json.loads(doctor.stdout)
    runner = next(c for c in report["checks"] if c["name"] == "runner")
    assert runner["ok"], runner
    claimed = runner["seccomp"]
    assert report["threat_model"]["seccomp"] == claimed
    assert report["threat_model"]["guarantees"] == {k: list(v) for k, v in guarantees(claimed).items()}
    # What runs: a program of a real run reads its own seccomp mode (2: a filter) in /proc.
    task = write_task(
        tmp_path / "task",
        initial={"solution.py": "X = 1\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "X = 2\n"}}],
        suites={"tests/test_seccomp.py": SECCOMP_SUITE},
    )
    run = _prism(
        "run",
        str(task),
        str(task / "tests" / "test_seccomp.py"),
        "--json",
        "--sandbox",
        "bubblewrap",
        "--cache-dir",
        str(tmp_path / "cache"),
        personality=personality,
    )
    assert run.returncode in (0, 1), run.stderr
    baseline = json.loads(run.stdout)["baseline"]
    assert (baseline["outcome"] == "pass") == claimed, (baseline, claimed)
    assert claimed == (not personality)  # natively x86_64's table; under i686 none
    text = _prism("doctor", personality=personality).stdout
    assert ("NO seccomp filter" in " ".join(text.split())) == (not claimed), text[-2000:]

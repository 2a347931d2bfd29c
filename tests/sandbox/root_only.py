"""A task whose suite checks, in every program, that root-only files cannot be read; shared by the
sandbox test as root without CAP_SYS_ADMIN and the Docker test in a real container."""

from __future__ import annotations

from pathlib import Path

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

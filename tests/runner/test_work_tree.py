"""A program runs on a writable copy of its read-only cached tree, as it would in plain pytest:
it writes, chmods and deletes its tree's files, and the tree's scripts keep their execute bits."""

from dataclasses import replace

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INITIAL = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def half(x):\n    return x // 2\n",
    "data/old.txt": "old\n",
    "run.sh": "#!/bin/sh\necho 1\n",
}
CANDIDATE = {"pkg/calc.py": "def half(x):\n    return (x + 1) // 2\n"}

SUITE = """\
import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_tree_is_the_programs_to_change():
    for folder in (ROOT, ROOT / "pkg", ROOT / "data"):
        assert os.stat(folder).st_mode & 0o700 == 0o700
    calc = ROOT / "pkg" / "calc.py"
    assert calc.stat().st_mode & 0o200
    with open(calc, "a") as fh:
        fh.write("\\nADDED = 1\\n")
    calc.chmod(0o400)
    assert stat.S_IMODE(calc.stat().st_mode) == 0o400
    (ROOT / "data" / "old.txt").unlink()
    (ROOT / "data" / "new.txt").write_text("new")
    assert sorted(p.name for p in (ROOT / "data").iterdir()) == ["new.txt"]


def test_scripts_keep_their_execute_bit():
    script = ROOT / "run.sh"
    assert script.stat().st_mode & 0o100
    assert subprocess.run([str(script)], capture_output=True, text=True).stdout == "1\\n"
"""


@pytest.fixture
def task(tmp_path):
    root = write_task(
        tmp_path / "task", initial=INITIAL, candidates=[{"id": "reference", "reference": True, "files": CANDIDATE}]
    )
    (root / "initial" / "run.sh").chmod(0o755)
    return load_task(root)


def test_a_program_changes_its_own_copy_of_the_tree(engine, task):
    result = engine.run(task, Suite("tests/test_tree.py", SUITE), RunOptions(sandbox="bubblewrap"))
    for res in (result.baseline, dict(result.results)[task.reference]):
        assert res.outcome == "pass", [(t.name, t.message) for t in res.tests]
        assert {t.name: t.outcome for t in res.tests} == {
            "test_the_tree_is_the_programs_to_change": "pass",
            "test_scripts_keep_their_execute_bit": "pass",
        }
    for program in (None, task.reference):  # the cached trees did not change
        tree = engine.cache.program(task, program).path
        assert (tree / "data" / "old.txt").exists() and not (tree / "data" / "new.txt").exists()
        assert "ADDED" not in (tree / "pkg" / "calc.py").read_text()


def test_a_test_command_runs_the_trees_script(engine, task):
    task = replace(task, test_command="sh tests/check.sh")
    suite = Suite("tests/check.sh", '[ -x run.sh ] && [ "$(./run.sh)" = 1 ]\n')
    result = engine.run(task, suite, RunOptions(sandbox="bubblewrap"))
    assert result.baseline.outcome == "pass", result.baseline.message

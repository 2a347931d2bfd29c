"""Candidate trees share the initial state's files on disk: a repository's tree costs one copy of
its files, not one per candidate, and no candidate's build changes another program's tree."""

import os

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.materialize import TreeCache
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

# Many files a fix does not touch, as in a repository, and two it does.
INITIAL = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def half(x):\n    return x // 2\n",
    "pkg/names.py": "NAME = 'initial'\n",
    **{f"pkg/other_{i}.py": f"VALUE = {i}\n" for i in range(40)},
    "data/table.txt": "a,b\n",
}
PATCH = """\
diff --git a/pkg/calc.py b/pkg/calc.py
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,2 +1,2 @@
 def half(x):
-    return x // 2
+    return (x + 1) // 2
diff --git a/data/table.txt b/data/gone.txt
similarity index 100%
rename from data/table.txt
rename to data/gone.txt
"""


@pytest.fixture
def task(tmp_path):
    root = write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[
            {"id": "reference", "reference": True, "patch": PATCH},
            {"id": "renamed", "files": {"pkg/names.py": "NAME = 'overlay'\n"}},
        ],
    )
    return load_task(root)


def _inode(path):
    st = os.lstat(path)
    return st.st_dev, st.st_ino


def test_unchanged_files_are_shared_with_the_initial_tree(tmp_path, task):
    cache = TreeCache(tmp_path / "cache")
    base = cache.baseline(task).path
    for candidate in task.candidates:
        tree = cache.program(task, candidate).path
        shared = [rel for rel in INITIAL if (tree / rel).exists() and _inode(tree / rel) == _inode(base / rel)]
        # Every file the candidate does not write is the initial tree's own inode.
        assert len(shared) >= 41, (candidate.id, sorted(set(INITIAL) - set(shared)))
    reference = cache.program(task, task.reference).path
    overlay = cache.program(task, task.candidate("renamed")).path
    assert _inode(reference / "pkg/calc.py") != _inode(base / "pkg/calc.py")
    assert _inode(overlay / "pkg/names.py") != _inode(base / "pkg/names.py")


def test_a_candidates_writes_never_reach_the_initial_tree(tmp_path, task):
    cache = TreeCache(tmp_path / "cache")
    base = cache.baseline(task).path
    reference = cache.program(task, task.reference).path
    overlay = cache.program(task, task.candidate("renamed")).path
    assert (reference / "pkg/calc.py").read_text() == "def half(x):\n    return (x + 1) // 2\n"
    assert (overlay / "pkg/names.py").read_text() == "NAME = 'overlay'\n"
    assert not (reference / "data/table.txt").exists() and (reference / "data/gone.txt").read_text() == "a,b\n"
    # The initial tree (and so every other candidate's shared files) is as the author wrote it,
    # and still passes the cache's own content check on a fresh cache object.
    for rel, text in INITIAL.items():
        assert (base / rel).read_text() == text, rel
    again = TreeCache(tmp_path / "cache")
    assert again.baseline(task).path == base and (base / "data/table.txt").exists()
    for rel, text in INITIAL.items():
        assert (task.initial / rel).read_text() == text, rel


SUITE = """\
from pathlib import Path

from pkg.calc import half

ROOT = Path(__file__).resolve().parents[1]


def test_half_and_write_own_tree():
    (ROOT / "pkg" / "other_3.py").write_text("VALUE = 'written'\\n")
    with open(ROOT / "pkg" / "other_4.py", "a") as fh:
        fh.write("MORE = 1\\n")
    assert half(3) == 2
"""


def test_a_program_writing_a_shared_file_changes_no_tree(engine, task):
    result = engine.run(task, Suite("tests/test_half.py", SUITE), RunOptions(sandbox="bubblewrap"))
    assert result.baseline.outcome == "fail"
    assert dict(result.results)[task.reference].outcome == "pass"
    for program in (None, task.reference, task.candidate("renamed")):
        tree = engine.cache.program(task, program).path
        assert (tree / "pkg/other_3.py").read_text() == "VALUE = 3\n"
        assert (tree / "pkg/other_4.py").read_text() == "VALUE = 4\n"

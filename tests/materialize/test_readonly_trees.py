"""Cached trees are read-only on disk: no write bit anywhere, so an editor that opens one (or a
person) cannot change what later runs judge; a tree changed anyway is rebuilt before it is used.

This machine runs the tests as root, whom modes do not stop: the modes are asserted, and the
writes are tried by an unprivileged uid that owns the tree (a forked child that drops to it).
"""

import errno
import os
import shutil
import stat
from pathlib import Path

import pytest

from prism_lsp.materialize import TreeCache
from prism_lsp.materialize.cache import remove_tree
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES, write_task

NOBODY = 65534
INITIAL = {"solution.py": "def f(x):\n    return x\n", "pkg/util.py": "K = 1\n", "run.sh": "#!/bin/sh\nexit 0\n"}
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another uid needs root")


@pytest.fixture
def task(tmp_path):
    root = write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "def f(x):\n    return x + 1\n"}}],
    )
    (root / "initial" / "run.sh").chmod(0o755)
    return load_task(root)


def entries(folder: Path):
    """Every file and folder under `folder`, `folder` itself included (links are skipped: they have no modes)."""
    yield folder, os.lstat(folder)
    for path in folder.rglob("*"):
        st = os.lstat(path)
        if not stat.S_ISLNK(st.st_mode):
            yield path, st


def assert_sealed(folder: Path):
    for path, st in entries(folder):
        assert st.st_mode & 0o222 == 0, f"{path} is writable: {stat.filemode(st.st_mode)}"
        want = 0o555 if stat.S_ISDIR(st.st_mode) else 0o444  # readable by the Docker backend's runner uids
        assert st.st_mode & want == want, f"{path}: {stat.filemode(st.st_mode)}"


def as_uid(uid: int, cwd: Path, action) -> int:
    """Run `action()` in a forked child that changed into `cwd` and dropped to `uid`; its exit code."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            os.chdir(cwd)  # as root, before dropping: the test's temporary folders are root's 0700
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            code = action()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def chown_all(folder: Path, uid: int):
    for path, _ in entries(folder):
        os.lchown(path, uid, uid)


def test_a_built_tree_has_no_write_bit_anywhere_and_keeps_execute_bits(tmp_path, task):
    cache = TreeCache(tmp_path / "cache")
    for tree in (cache.baseline(task), cache.candidate(task, task.reference)):
        assert_sealed(tree.path.parent)  # the tree, its folder and its meta.json
        assert (tree.path / "run.sh").stat().st_mode & 0o111 == 0o111
        assert (tree.path / "solution.py").stat().st_mode & 0o111 == 0


@needs_root
def test_the_owner_of_a_built_tree_cannot_write_into_it(tmp_path, task):
    tree = TreeCache(tmp_path / "cache").candidate(task, task.reference)
    chown_all(tree.path.parent, NOBODY)  # as if a non-root user had built it

    def try_writes() -> int:
        failed = 0
        for attempt in (
            lambda: open("solution.py", "a"),
            lambda: open("pkg/new.py", "x"),
            lambda: os.unlink("pkg/util.py"),
            lambda: os.rename("solution.py", "moved.py"),
        ):
            try:
                attempt().close()
            except PermissionError:
                failed += 1
            except AttributeError:  # unlink and rename return None: they succeeded
                pass
        return failed

    assert as_uid(NOBODY, tree.path, try_writes) == 4
    assert (tree.path / "solution.py").read_text() == "def f(x):\n    return x + 1\n"
    assert (tree.path / "pkg" / "util.py").exists() and not (tree.path / "pkg" / "new.py").exists()


@needs_root
def test_a_read_only_tree_is_removed_by_its_non_root_owner(tmp_path, task):
    tree = TreeCache(tmp_path / "cache").candidate(task, task.reference)
    folder = tree.path.parent
    chown_all(folder, NOBODY)
    os.lchown(folder.parent, NOBODY, NOBODY)  # the cache's trees folder: the owner may remove entries

    def plain_rmtree() -> int:  # what removal did before: fails on the read-only folders
        try:
            shutil.rmtree(folder.name)
        except PermissionError as exc:
            return exc.errno
        return 0

    assert as_uid(NOBODY, folder.parent, plain_rmtree) == errno.EACCES
    assert as_uid(NOBODY, folder.parent, lambda: remove_tree(Path(folder.name)) or 0) == 0
    assert not folder.exists()


def test_a_tree_edited_anyway_is_rebuilt_sealed_before_the_next_run(tmp_path):
    task = load_task(FIXTURES / "mean-rounded")
    cand = task.candidate("half-even")
    cache = TreeCache(tmp_path)
    built = cache.candidate(task, cand)
    solution = built.path / "solution.py"
    original = solution.read_text()
    built.path.chmod(0o755)
    solution.chmod(0o644)
    solution.write_text("def mean_rounded(values):\n    return 42\n")
    (built.path / "planted.py").write_text("X = 1\n")
    for reader in (cache, TreeCache(tmp_path)):  # the process that built it, and a new one
        again = reader.candidate(task, cand)
        assert (again.path / "solution.py").read_text() == original
        assert not (again.path / "planted.py").exists()
        assert_sealed(again.path.parent)


def test_a_write_bit_given_back_without_an_edit_is_taken_away_again(tmp_path, task):
    cache = TreeCache(tmp_path / "cache")
    built = cache.candidate(task, task.reference)
    (built.path / "solution.py").chmod(0o644)
    (built.path / "pkg").chmod(0o755)
    again = TreeCache(tmp_path / "cache").candidate(task, task.reference)
    assert again.path == built.path
    assert_sealed(again.path.parent)

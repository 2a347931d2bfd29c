"""Docker's staging folders on the real filesystem: one runner's folder holds exactly one tree,
readable by that runner's uid only (checked with real processes under other uids when root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from prism_lsp.sandbox.docker_stage import StageRoot, link_tree


def _tree(root: Path, text: str) -> Path:
    tree = root / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "solution.py").write_text(text)
    (tree / "pkg" / "__init__.py").write_text("")
    (tree / "link.py").symlink_to("solution.py")
    return tree


def _as(uid: int, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), check=False, user=uid, group=uid, cwd="/", capture_output=True, text=True)


def test_a_runner_stage_holds_one_tree_at_a_time_and_links_the_cache(tmp_path):
    first, second = _tree(tmp_path / "a", "A = 1\n"), _tree(tmp_path / "b", "B = 2\n")
    stage = StageRoot(tmp_path / "cache", "c1", "/prism-stage").for_runner(4242)
    assert stage.place(str(first)) == f"/prism-stage/{stage.host.name}/tree"
    staged = stage.host / "tree"
    assert (staged / "solution.py").stat().st_ino == (first / "solution.py").stat().st_ino
    assert os.readlink(staged / "link.py") == "solution.py" and (staged / "pkg" / "__init__.py").is_file()
    stage.place(str(second))
    assert sorted(p.name for p in staged.iterdir()) == ["link.py", "pkg", "solution.py"]
    assert (staged / "solution.py").read_text() == "B = 2\n"
    stage.clear()
    assert list(stage.host.iterdir()) == []


def test_across_filesystems_the_tree_is_copied(tmp_path):
    tree = _tree(tmp_path, "A = 1\n")
    with tempfile.TemporaryDirectory(dir="/dev/shm") as other:
        if os.stat(other).st_dev == os.stat(tree).st_dev:
            pytest.skip("/dev/shm and the test folder share a filesystem here")
        assert link_tree(tree, Path(other) / "tree") == 2
        assert (Path(other) / "tree" / "solution.py").read_text() == "A = 1\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="other uids can be used only as root")
def test_only_the_runners_uid_reads_its_stage():
    # Under /tmp itself: pytest's own folders are 0700, which no other uid could cross anyway.
    base = Path(tempfile.mkdtemp(dir="/tmp", prefix="prism-stage-test-"))
    try:
        base.chmod(0o755)
        tree = _tree(base / "src", "SECRET = 1\n")
        root = StageRoot(base / "cache", "c1", "/prism-stage")
        stage = root.for_runner(4243)
        stage.place(str(tree))
        solution = str(stage.host / "tree" / "solution.py")
        assert oct(stage.host.stat().st_mode & 0o777) == "0o700" and stage.host.stat().st_uid == 4243
        assert "SECRET" in _as(4243, "cat", solution).stdout
        assert "Permission denied" in _as(4244, "cat", solution).stderr
        assert "Permission denied" in _as(4244, "ls", str(root.host)).stderr
        assert _as(4244, "ls", str(base / "src")).returncode == 0  # the rest of the path is open to it
    finally:
        shutil.rmtree(base)

"""Binary git patches (a fix changing a data file): applied, and their paths checked like any other."""

from __future__ import annotations

import subprocess

import pytest

from prism_lsp.materialize.apply import apply_patch
from prism_lsp.materialize.diffcheck import UnsafeDiff, summarize_diff


def _binary_diff(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "data.bin").write_bytes(bytes(range(256)))
    run("add", "-A")
    run("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "base")
    (repo / "data.bin").write_bytes(bytes(range(255, -1, -1)))
    return run("diff", "--binary", "--full-index").stdout.decode()


def test_a_binary_patch_applies_and_names_its_file(tmp_path):
    text = _binary_diff(tmp_path)
    assert "GIT binary patch" in text
    assert summarize_diff(text).files == ["data.bin"]
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "data.bin").write_bytes(bytes(range(256)))
    (tmp_path / "p.diff").write_text(text)
    apply_patch(tmp_path / "p.diff", tree)
    assert (tree / "data.bin").read_bytes() == bytes(range(255, -1, -1))


@pytest.mark.parametrize("path", ["../outside.bin", ".git/hooks/x"])
def test_a_binary_patch_leaving_the_tree_is_refused(tmp_path, path):
    text = _binary_diff(tmp_path).replace("a/data.bin b/data.bin", f"a/{path} b/{path}")
    with pytest.raises(UnsafeDiff):
        summarize_diff(text)


def test_a_binary_patch_without_a_header_naming_its_file_is_refused(tmp_path):
    text = _binary_diff(tmp_path).replace("diff --git a/data.bin b/data.bin", "diff --git a/data.bin b/other.bin")
    with pytest.raises(UnsafeDiff, match="binary patch without"):
        summarize_diff(text)

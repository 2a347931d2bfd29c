"""C-quoted diff paths (`"a/sp\\303\\244ce.py"`) are unescaped exactly as git unescapes them, so the path
check and `git apply` read the same file."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from prism_lsp.materialize.apply import apply_patch
from prism_lsp.materialize.diffcheck import UnsafeDiff, summarize_diff, unquote_c

UNQUOTED = [
    (r'"a/sp\303\244ce.py"', "a/späce.py"),
    (r'"a/tab\there"', "a/tab\there"),
    (r'"a/q\"uote\\back"', 'a/q"uote\\back'),
    (r'"a\a\b\f\n\r\v"', "a\a\b\f\n\r\v"),
    (r'"a/\056\056/x.py"', "a/../x.py"),
    (r'"a/\377"', "a/\udcff"),  # not UTF-8: the byte kept (surrogateescape), as a file name holds it
]


@pytest.mark.parametrize("quoted, path", UNQUOTED)
def test_a_quoted_path_is_unescaped_as_git_does(quoted, path):
    assert unquote_c(quoted + "\t2024-01-01") == (path, "\t2024-01-01")


@pytest.mark.parametrize(
    "quoted, why",
    [(r'"a/x\q"', r"unknown escape \q"), (r'"a/\400"', r"unknown escape \4"), ('"a/x', "no closing quote")],
)
def test_malformed_quoting_is_refused(quoted, why):
    with pytest.raises(UnsafeDiff, match=f"malformed quoted path .*{why.replace(chr(92), chr(92) * 2)}"):
        unquote_c(quoted)


@pytest.mark.parametrize("path", [r"\056\056/outside.py", r"\056git/config", r"sub/\056\056/\056\056/x.py"])
def test_an_escaped_path_leaving_the_tree_is_refused(path):
    text = f'diff --git "a/{path}" "b/{path}"\n--- "a/{path}"\n+++ "b/{path}"\n@@ -1 +1 @@\n-x = 1\n+x = 2\n'
    with pytest.raises(UnsafeDiff):
        summarize_diff(text)


NAMES = ["späce.py", "tab\there.py", 'quo"te.py', "back\\slash.py", "plain name.py"]


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def test_the_check_and_git_apply_agree_on_quoted_paths(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for name in NAMES:
        (repo / name).write_text("x = 1\n")
    (repo / "bïn.dat").write_bytes(bytes(range(256)))
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "base")
    tree = tmp_path / "tree"
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))
    for name in NAMES:
        (repo / name).write_text("x = 2\n")
    (repo / "bïn.dat").write_bytes(bytes(range(255, -1, -1)))
    text = _git(repo, "-c", "core.quotePath=true", "diff", "--binary", "--full-index").decode()
    assert r'"a/sp\303\244ce.py"' in text and r'"a/tab\there.py"' in text and r'"a/b\303\257n.dat"' in text

    summary = summarize_diff(text)
    assert sorted(summary.files) == sorted([*NAMES, "bïn.dat"])
    assert all(summary.changed_lines[name] == {1} for name in NAMES)
    (tmp_path / "p.diff").write_text(text)
    apply_patch(tmp_path / "p.diff", tree)
    changed = sorted(p.name for p in tree.iterdir() if p.read_bytes() not in (b"x = 1\n", bytes(range(256))))
    assert changed == sorted(summary.files)

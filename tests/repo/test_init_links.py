"""`prism init` never writes outside the repository's `.prism/`: links are judged against the finished
tree (a chain of `lN -> lN+1/..` links that each looked inside while the next was missing) and
nothing is written through one."""

from __future__ import annotations

import os

import pytest

from prism_lsp.materialize.links import UnsafeLink, leaves_tree, write_target
from tests.repo.gitrepo import prism, snapshot
from tests.repo.hostile import link_chain_repo


def _outside(tmp_path, repo) -> dict[str, bytes]:
    return {
        p.relative_to(tmp_path).as_posix(): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file() and not p.is_relative_to(repo)
    }


@pytest.mark.parametrize("links, lands", [(6, "above the repository"), (5, "in the repository's work tree")])
def test_a_chain_of_links_is_refused_and_nothing_is_written(tmp_path, capsys, links, lands):
    repo = link_chain_repo(tmp_path / "outer" / "repo", links)
    before, outside = snapshot(repo), _outside(tmp_path, repo)
    code, out, err = prism(capsys, "init", str(repo), "--fix", "HEAD")
    assert code == 2, (out, err)
    assert "'l0' links to 'l1/..', outside the tree once it is complete (it goes above the tree's root)" in err
    assert not (repo.parent / "conftest.py").exists() and not (repo / "conftest.py").exists(), lands
    assert snapshot(repo) == before and _outside(tmp_path, repo) == outside
    assert not (repo / ".prism").exists() and not (repo / "prism.toml").exists()


def _tree(root, links: dict[str, str], folders=()):
    root.mkdir()
    for folder in folders:
        (root / folder).mkdir(parents=True)
    for rel, target in links.items():
        os.symlink(target, root / rel)
    return root


@pytest.mark.parametrize(
    "links, folders, rel, why",
    [
        ({"a": "b"}, (), "a", None),  # dangling, inside
        ({"pkg/alias.py": "../calc.py"}, ("pkg",), "pkg/alias.py", None),
        ({"up": ".."}, (), "up", "it goes above the tree's root"),
        ({"abs": "/etc"}, (), "abs", "abs links to the absolute path '/etc'"),
        # Leaves and comes back by the tree's folder name: means another folder once copied elsewhere.
        ({"back": "../tree/calc.py"}, (), "back", "it goes above the tree's root"),
        ({"l0": "l1/..", "l1": "l2/..", "l2": "."}, (), "l0", "it goes above the tree's root"),
        ({"l0": "l1/..", "l1": "."}, (), "l0", "it goes above the tree's root"),
        ({"loop": "loop2", "loop2": "loop"}, (), "loop", "more than 40 links to follow (a loop)"),
        ({"d": "sub"}, ("sub",), "d/../calc.py", None),
    ],
)
def test_a_link_is_followed_step_by_step_through_the_tree(tmp_path, links, folders, rel, why):
    root = _tree(tmp_path / "tree", links, folders)
    assert leaves_tree(root, rel) == why


def test_writing_never_goes_through_a_link(tmp_path):
    root = _tree(tmp_path / "tree", {"inside": "sub"}, ("sub",))
    with pytest.raises(UnsafeLink, match="'inside/conftest.py': inside is a link in the tree"):
        write_target(root, "inside/conftest.py")
    with pytest.raises(UnsafeLink, match="not a plain path"):
        write_target(root, "../x.py")
    # A link at the path itself is replaced, not written through.
    assert write_target(root, "inside") == root / "inside" and not os.path.lexists(root / "inside")

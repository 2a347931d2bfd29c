"""A repository with a fix of clamp() and its regression test, weak or strong, and `prism gate` run on it."""

from __future__ import annotations

from pathlib import Path

from tests.repo.gitrepo import prism, snapshot

BEFORE = '''\
    def clamp(x, low, high):
        """Return x limited to the range [low, high]."""
        return max(low, x)
'''
AFTER = BEFORE.replace("return max(low, x)", "return max(low, min(x, high))")
WEAK = """\
    from util import clamp


    def test_clamp_caps_at_high():
        assert clamp(15, 0, 10) <= 10
"""
STRONG = """\
    from util import clamp


    def test_clamp_caps_at_high():
        assert clamp(15, 0, 10) == 10
        assert clamp(-3, 0, 10) == 0
        assert clamp(4, 0, 10) == 4
        assert clamp(1, 0, 1) == 1
        assert clamp(0, 4, 6) == 4
"""


def repo_files(repo: Path) -> dict[str, bytes]:
    """The repository's files and git state, less the task `prism init` writes (excluded from git)."""
    return {
        rel: data
        for rel, data in snapshot(repo).items()
        if not rel.startswith(("prism.toml", ".prism/", ".git/info/exclude"))
    }


def gate(capsys, cache_dir, repo, *extra):
    return prism(capsys, "gate", str(repo), "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir), *extra)

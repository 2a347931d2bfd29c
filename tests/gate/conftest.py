import pytest

from tests.gate.change_repo import AFTER, BEFORE, WEAK
from tests.repo.gitrepo import commit, make_repo, write


@pytest.fixture
def fixed_repo(tmp_path):
    """A repository whose last commit fixes clamp() and adds a weak regression test."""
    repo = make_repo(tmp_path / "repo", {"util.py": BEFORE})
    write(repo, {"util.py": AFTER, "tests/test_util.py": WEAK})
    commit(repo, "clamp: cap at high")
    return repo

"""A task's initial state never makes `git apply` (run on the host, building each candidate's tree) read
a repository of its own: a `.git` file naming a git folder in the tree, whose config names a filter
driver that `.gitattributes` applies, would be a command run as the user."""

from __future__ import annotations

import pytest

from prism_lsp.materialize.cache import TreeCache
from prism_lsp.tasks import load_task
from tests.conftest import write_task

PATCH = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


@pytest.mark.parametrize("git_entry", ["file", "link"])
def test_a_git_folder_in_the_initial_state_never_runs_its_filters(tmp_path, git_entry):
    marker = tmp_path / "ran-on-the-host"
    root = write_task(
        tmp_path / "task",
        initial={
            "calc.py": "x = 1\n",
            ".gitattributes": "* filter=x\n",
            "g/HEAD": "ref: refs/heads/main\n",
            "g/config": f'[core]\n\trepositoryformatversion = 0\n[filter "x"]\n\tclean = sh -c "echo ran >> {marker}; cat"\n',
            "g/objects/.keep": "",
            "g/refs/.keep": "",
        },
        candidates=[{"id": "two", "reference": True, "patch": PATCH}],
    )
    if git_entry == "file":
        (root / "initial" / ".git").write_text("gitdir: g\n")
    else:
        (root / "initial" / ".git").symlink_to("g")
    task = load_task(root)
    tree = TreeCache(tmp_path / "cache").candidate(task, task.candidates[0])
    assert (tree.path / "calc.py").read_text() == "x = 2\n"
    assert not marker.exists() and not (tree.path / ".git").exists()

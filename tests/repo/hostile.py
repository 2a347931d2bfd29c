"""Hostile repositories for the trust tests: shapes an attacker commits, built as real git repositories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.repo.gitrepo import commit, make_repo, write

FIX = {"calc.py": "def add(a, b):\n    return a + b\n",
       "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"}


def venv_script_repo(path: Path, marker: Path, fixed: bool) -> Path:
    """A repository committing `.venv` whose `bin/python` is a shell script appending to `marker`; the fix
    (code and test) committed when `fixed`, else left in the working tree."""
    py = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    repo = make_repo(path, {
        "calc.py": "def add(a, b):\n    return a - b\n",
        ".venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
        ".venv/bin/python": f"#!/bin/sh\necho ran >> {marker}\nexit 1\n",
        f".venv/lib/{py}/site-packages/pytest-9.2.0.dist-info/METADATA": "Name: pytest\nVersion: 9.2.0\n",
    })
    os.chmod(repo / ".venv" / "bin" / "python", 0o755)
    commit(repo, "an executable venv python")
    write(repo, FIX)
    if fixed:
        commit(repo, "add: plus")
    return repo

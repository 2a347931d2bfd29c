"""Hostile repositories for the trust tests: shapes an attacker commits, built as real git repositories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.repo.gitrepo import commit, make_repo, write

FIX = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def venv_script_repo(path: Path, marker: Path, fixed: bool) -> Path:
    """A repository committing `.venv` whose `bin/python` is a shell script appending to `marker`; the fix
    (code and test) committed when `fixed`, else left in the working tree."""
    py = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    repo = make_repo(
        path,
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            ".venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
            ".venv/bin/python": f"#!/bin/sh\necho ran >> {marker}\nexit 1\n",
            f".venv/lib/{py}/site-packages/pytest-9.2.0.dist-info/METADATA": "Name: pytest\nVersion: 9.2.0\n",
        },
    )
    os.chmod(repo / ".venv" / "bin" / "python", 0o755)
    commit(repo, "an executable venv python")
    write(repo, FIX)
    if fixed:
        commit(repo, "add: plus")
    return repo


def link_chain_repo(path: Path, links: int) -> Path:
    """A base commit holding `l0 -> l1/..`, …, `l{links-1} -> .` (each looks inside while the next is
    missing; together `l0` is `links - 1` folders up), then a fix commit making `l0` a folder with a
    `conftest.py` beside the fixed code and its test."""
    repo = make_repo(path, {"calc.py": "def add(a, b):\n    return a - b\n"})
    for i in range(links):
        os.symlink(f"l{i + 1}/.." if i < links - 1 else ".", repo / f"l{i}")
    commit(repo, "links")
    (repo / "l0").unlink()
    write(repo, {**FIX, "l0/conftest.py": "ESCAPED = True\n"})
    commit(repo, "the fix, and l0 a folder")
    return repo


def git_config_repo(path: Path, marker: Path, fixed: bool) -> Path:
    """A repository whose `.git/config` (a folder copied, not cloned) names commands git would run:
    `core.fsmonitor`, a filter driver's clean/smudge and a diff driver's textconv, each appending to
    `marker`; `.gitattributes` applies the drivers to every file."""
    repo = make_repo(path, {"calc.py": "def add(a, b):\n    return a - b\n", ".gitattributes": "* filter=x diff=x\n"})
    script = path.parent / "run.sh"
    script.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")
    script.chmod(0o755)
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(
            f'[core]\n\tfsmonitor = {script}\n[filter "x"]\n\tclean = {script}\n\tsmudge = {script}\n'
            f'[diff "x"]\n\ttextconv = {script}\n'
        )
    write(repo, FIX)
    if fixed:
        commit(repo, "add: plus")
    return repo

"""README's `prism init` commands, run as shown, in order, in a real repository (the fix in its
working tree), with the installed `prism` command."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.repo.gitrepo import make_repo, status, write

SECTION = (ROOT / "README.md").read_text().split("## Your own repository: a task from a bug fix", 1)[1]
COMMANDS = re.search(r"```shell\n(.*?)```", SECTION, re.S).group(1).strip().splitlines()


def test_readme_init_commands_run_as_shown(tmp_path):
    assert [c.split()[0] for c in COMMANDS] == ["prism", "prism", "git", "git", "prism", "prism"]
    repo = make_repo(
        tmp_path / "shop",
        {"src/shop/__init__.py": "", "src/shop/money.py": "def cents(euros):\n    return int(euros * 100)\n"},
    )
    write(
        repo,
        {
            "src/shop/money.py": "def cents(euros):\n    return round(euros * 100)\n",
            "tests/test_money.py": "from shop.money import cents\n\n\ndef test_cents():\n"
            "    assert cents(0.29) == 29\n",
        },
    )
    (tmp_path / "minutes.py").write_text("def whole_minutes(seconds):\n    return seconds // 60\n")
    env = {
        **os.environ,
        "PRISM_CACHE_DIR": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.org",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.org",
    }
    for command in COMMANDS:
        args = shlex.split(command)
        # `prism` as installed beside the test interpreter when the venv is not on PATH.
        exe = shutil.which(args[0]) or str(Path(sys.executable).parent / args[0])
        proc = subprocess.run([exe, *args[1:]], cwd=repo, capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        if args[:2] == ["prism", "run"]:
            assert "initial program: fail" in proc.stdout and "JSF yes" in proc.stdout
    assert status(repo) == ""  # everything committed, the task's files excluded
    assert (
        (repo / "prism.toml")
        .read_text()
        .startswith("#:schema ./.prism/prism.toml.schema.json\n# Made by `prism init` (base ")
    )
    assert (tmp_path / "minutes-task" / "prism.toml").is_file()

"""README's "Prism in CI" commands, run as shown, in order, in a repository whose last commit is a fix
with a weak regression test: below the gate at the default threshold, through it at 20 %; and its
`[tool.prism]` example is a valid project configuration."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema

from prism_lsp.model.project_config import read_project_config
from tests.conftest import ROOT
from tests.repo.gitrepo import status

SECTION = (ROOT / "README.md").read_text().split("## Prism in CI: one gate for a change", 1)[1].split("\n## ", 1)[0]
COMMANDS = re.search(r"```shell\n(.*?)```", SECTION, re.S).group(1).strip().splitlines()
TOML = re.search(r"```toml\n(.*?)```", SECTION, re.S).group(1)


def test_readme_gate_commands_run_as_shown(fixed_repo, cache_dir):
    assert [c.split()[:2] for c in COMMANDS] == [["prism", "gate"]] * 2
    env = {**os.environ, "PRISM_CACHE_DIR": str(cache_dir)}
    codes = []
    for command in COMMANDS:
        args = shlex.split(command)
        exe = shutil.which(args[0]) or str(Path(sys.executable).parent / args[0])
        proc = subprocess.run([exe, *args[1:]], cwd=fixed_repo, capture_output=True, text=True, env=env, timeout=600)
        assert "Traceback" not in proc.stderr, proc.stderr
        codes.append(proc.returncode)
    assert codes == [1, 0]
    for name in ("prism.sarif", "prism.xml", "mutation.json"):
        assert (fixed_repo.parent / name).is_file()
    assert status(fixed_repo) == ""


def test_readme_tool_prism_example_is_valid(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(TOML)
    config = read_project_config(pyproject)
    assert config.fail_under_invalid_rejection == 90 and config.mutate == "changed"
    schema = __import__("json").loads((ROOT / "schemas" / "tool-prism.schema.json").read_text())
    jsonschema.validate(tomllib.loads(TOML)["tool"]["prism"], schema, cls=jsonschema.Draft202012Validator)

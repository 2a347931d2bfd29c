"""README stays honest: every `prism …` command it shows runs and exits as documented."""

import re
import shlex
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```sh\n(.*?)```", README, re.S)
COMMANDS = [
    line.split("#")[0].strip() for block in BLOCKS for line in block.splitlines() if line.strip().startswith("prism ")
]


def test_readme_opens_with_the_two_commands():
    first = BLOCKS[0].splitlines()
    assert first[0].startswith("scripts/demo") and first[1].startswith("scripts/test")
    for script in ("demo", "test"):
        assert (ROOT / "scripts" / script).stat().st_mode & 0o111
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nscripts/test\n" in ci and "\nscripts/demo\n" in ci


def test_readme_shows_prism_commands():
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(command, tmp_path):
    args = shlex.split(command)
    proc = subprocess.run(
        [shutil.which(args[0]), *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "PRISM_CACHE_DIR": str(tmp_path)},
    )
    allowed = {0, 1} if args[1] == "run" else {0}
    assert proc.returncode in allowed, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_layout_names_every_package_and_module():
    # README's Layout says where each job lives: a package or folder it leaves out has no place there.
    layout = re.search(r"## Layout\n\n```\n(.*?)```", README, re.S).group(1)
    named = {
        word.rstrip(",") for line in layout.splitlines() if not line.startswith(" " * 3) for word in line.split()[:2]
    }
    package = ROOT / "prism_lsp"
    expected = {f"{p.name}/" for p in package.iterdir() if p.is_dir() and not p.name.startswith("__")}
    expected |= {p.name for p in package.glob("*.py") if not p.name.startswith("__")}
    expected |= {"prism_lsp/", "vscode-client/", "fixtures/", "bench/", "tests/", "schemas/", "scripts/"}
    assert expected <= named, f"README's Layout does not name {sorted(expected - named)}"

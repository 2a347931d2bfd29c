"""A repository's files never run on the host: `prism init` (and the editor's offer, which runs the
same code) finds the repository's venv by reading it, and its Python first starts in the sandbox.

The repository commits a `.venv` whose `bin/python` is a shell script leaving a marker file; a
`pytest-*.dist-info` beside it says pytest is installed, so the venv is taken as the task's Python.
"""

from __future__ import annotations

import pytest

from prism_lsp.repo.offer import InitOffers
from tests.repo.gitrepo import prism, status, write
from tests.repo.hostile import git_config_repo, venv_script_repo


def test_init_reads_the_venv_and_never_starts_its_python(tmp_path, capsys):
    marker = tmp_path / "ran-on-the-host"
    repo = venv_script_repo(tmp_path / "repo", marker, fixed=True)
    code, out, err = prism(capsys, "init", str(repo), "--fix", "HEAD")
    assert code == 0, err
    assert not marker.exists()
    assert "python:    venv .venv/ (pytest 9.2.0, Python 3.11.7; read from its files" in out
    assert 'python = "' + str(repo / ".venv" / "bin" / "python") + '"' in (repo / "prism.toml").read_text()

    # Judging starts that Python in the sandbox only: the host never sees the marker, and the
    # report says the runner did not start.
    code, out, err = prism(
        capsys,
        "run",
        str(repo / "tests" / "test_calc.py"),
        "--sandbox",
        "bubblewrap",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    assert code != 0 and not marker.exists(), (out, err)


def test_the_editors_offer_never_starts_the_venvs_python(tmp_path):
    marker = tmp_path / "ran-on-the-host"
    repo = venv_script_repo(tmp_path / "repo", marker, fixed=False)
    before = status(repo)
    result = InitOffers().accept(repo / "tests" / "test_calc.py")
    assert not marker.exists()
    assert result.suites == ["tests/test_calc.py"] and result.python == str(repo / ".venv" / "bin" / "python")
    assert status(repo) == before


@pytest.mark.parametrize(
    "cfg, packages, note",
    [
        ("version = 3.12.1\n", {}, "venv .venv/ found (Python 3.12.1), but no pytest among its packages"),
        (
            "version_info = 3.12.1.final.0\n",
            {"site/pytest-8.3.2.dist-info/METADATA": "Version: 8.3.2\n"},
            "venv .venv/ (pytest 8.3.2, Python 3.12.1.final.0",
        ),
    ],
)
def test_what_the_venvs_files_say_is_what_init_reports(tmp_path, cfg, packages, note):
    from prism_lsp.repo.venv import find_venv

    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(cfg)
    (venv / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    site = venv / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    # Reached through a .pth path line, as an editable or shared install is.
    (tmp_path / "site").mkdir()
    (site / "shared.pth").write_text(f"import os\n{tmp_path / 'site'}\n")
    write(tmp_path, packages)
    assert find_venv(tmp_path).note.startswith(note)


@pytest.mark.parametrize("fixed", [True, False], ids=["--fix HEAD", "working tree"])
def test_init_never_runs_a_command_the_repositorys_git_config_names(tmp_path, capsys, fixed):
    marker = tmp_path / "ran-on-the-host"
    repo = git_config_repo(tmp_path / "repo", marker, fixed)
    marker.unlink(missing_ok=True)  # the commits above ran them: they are this test's setup, not Prism
    code, out, err = prism(capsys, "init", str(repo), *(["--fix", "HEAD"] if fixed else []))
    assert code == 0, err
    assert not marker.exists()
    assert "+    return a + b" in (repo / ".prism" / "candidates" / "reference.diff").read_text()

"""The Config a runner builds before forking (`_prism_speedups.prebuild_config`) serves each
program once and pristine, and a session started from it sees its own folder, arguments and
configuration file, exactly as a fresh `pytest.main` would."""

from __future__ import annotations

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INI = "[pytest]\npython_functions = check_*\nmarkers =\n    slow: a declared marker\n"

SUITE = """
import os
from pathlib import Path
import pytest
from calc import half

def check_invocation(pytestconfig):
    params = pytestconfig.invocation_params
    assert params.dir == Path.cwd() and any("test_calc.py" in str(a) for a in params.args)
    assert pytestconfig.rootpath == Path.cwd() and pytestconfig.inipath.name == "pytest.ini"

def check_ini_read(pytestconfig):
    assert pytestconfig.getini("python_functions") == ["check_*"]

@pytest.mark.slow
def check_declared_marker():
    assert half(4) == 2

def check_config_is_fresh(pytestconfig):
    # Set by whichever program ran first: a Config shared between programs would carry it over.
    assert not hasattr(pytestconfig, "_prism_test_seen")
    pytestconfig._prism_test_seen = True

def test_not_collected_by_this_ini():
    assert False
"""


def test_each_program_starts_from_a_pristine_config_of_its_own(tmp_path, engine):
    calc = "def half(x):\n    return x // 2\n"
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": calc, "pytest.ini": INI},
        candidates=[{"id": f"c{i}", "reference": i == 0, "files": {"calc.py": calc + f"# {i}\n"}} for i in range(3)],
    )
    task = load_task(root)
    options = RunOptions(sandbox="bubblewrap")
    for _ in range(2):  # the second run: the same runners, their next forks
        run = engine.run(task, Suite("test_calc.py", SUITE), options)
        for program in [run.baseline, *(result for _, result in run.results)]:
            assert {t.name: t.outcome for t in program.tests} == {
                "check_invocation": "pass",
                "check_ini_read": "pass",
                "check_declared_marker": "pass",
                "check_config_is_fresh": "pass",
            }, program

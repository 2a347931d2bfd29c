"""What a runner learns once and every forked program reuses (`_prism_suitecode`, `_prism_speedups`)
never changes what a program is judged on: each suite version is judged by its own text, a program
that rewrites its suite file is judged on the file pytest would import, and fixtures of a program's
own plugin objects are found as in plain pytest."""

from __future__ import annotations

from prism_lsp.engine.panel import Suite
from prism_lsp.engine.session import RunOptions
from prism_lsp.tasks import load_task
from tests.conftest import write_task

CALC = "def half(x):\n    return x // 2\n"
PASSING = "from calc import half\n\ndef test_half():\n    assert half(4) == 2\n"
# The same test name, a failing assertion two lines lower: a stale code object would pass, or
# point at line 4.
FAILING = "from calc import half\n\n\ndef test_half():\n\n    assert half(4) == 3\n"


def _outcomes(run) -> list[tuple[str, str, int | None]]:
    return [(t.name, t.outcome, t.line) for program in [run.baseline, *(r for _, r in run.results)]
            for t in program.tests]


def _task(tmp_path, initial: dict[str, str]):
    root = write_task(tmp_path / "task", initial={"calc.py": CALC, **initial},
                      candidates=[{"id": f"c{i}", "reference": i == 0, "files": {"calc.py": CALC + f"# {i}\n"}}
                                  for i in range(3)])
    return load_task(root)


def test_each_suite_version_is_judged_by_its_own_text(tmp_path, engine):
    task = _task(tmp_path, {})
    options = RunOptions(sandbox="bubblewrap")
    for text, expected in [(PASSING, ("test_half", "pass", None)), (FAILING, ("test_half", "fail", 6)),
                           (PASSING, ("test_half", "pass", None)), (FAILING, ("test_half", "fail", 6))]:
        run = engine.run(task, Suite("test_calc.py", text), options)
        assert set(_outcomes(run)) == {expected}


REWRITER = '''
import pathlib

# Runs before the suite is collected (an initial conftest): plain pytest then imports the new text.
suite = pathlib.Path(__file__).with_name("test_calc.py")
suite.write_text(suite.read_text().replace("== 2", "== 5"))
'''


def test_a_program_that_rewrites_its_suite_is_judged_on_the_rewritten_file(tmp_path, engine):
    task = _task(tmp_path, {"conftest.py": REWRITER})
    for _ in range(2):  # the second time, the runners have compiled this suite text before
        run = engine.run(task, Suite("test_calc.py", PASSING), RunOptions(sandbox="bubblewrap"))
        assert set(_outcomes(run)) == {("test_half", "fail", 4)}


OWN_PLUGIN = '''
import pytest


class Numbers:
    """A plugin object of the program's own: its fixtures are found on its class."""

    @pytest.fixture
    def four(self):
        return 4


def pytest_configure(config):
    config.pluginmanager.register(Numbers(), "numbers")
'''


def test_fixtures_of_a_programs_own_plugin_object_are_found(tmp_path, engine):
    task = _task(tmp_path, {"conftest.py": OWN_PLUGIN})
    suite = Suite("test_calc.py", "from calc import half\n\ndef test_half(four, tmp_path, capsys):\n"
                                  "    assert half(four) == 2\n")
    for _ in range(2):
        run = engine.run(task, suite, RunOptions(sandbox="bubblewrap"))
        assert set(_outcomes(run)) == {("test_half", "pass", None)}

"""What a runner learns once and every forked program reuses (`_prism_suitecode`, `_prism_speedups`)
never changes what a program is judged on: each suite version is judged by its own text, a program
that rewrites its suite file is judged on the file pytest would import, and fixtures of a program's
own plugin objects are found as in plain pytest."""

from __future__ import annotations

from prism_lsp.engine.requests import run_request
from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from prism_lsp.tasks.pytest_config import initial_config
from tests.conftest import write_task

CALC = "def half(x):\n    return x // 2\n"
PASSING = "from calc import half\n\ndef test_half():\n    assert half(4) == 2\n"
# The same test name, a failing assertion two lines lower: a stale code object would pass, or
# point at line 4.
FAILING = "from calc import half\n\n\ndef test_half():\n\n    assert half(4) == 3\n"


def _outcomes(run) -> list[tuple[str, str, int | None]]:
    return [
        (t.name, t.outcome, t.line) for program in [run.baseline, *(r for _, r in run.results)] for t in program.tests
    ]


def _task(tmp_path, initial: dict[str, str]):
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": CALC, **initial},
        candidates=[{"id": f"c{i}", "reference": i == 0, "files": {"calc.py": CALC + f"# {i}\n"}} for i in range(3)],
    )
    return load_task(root)


def test_each_suite_version_is_judged_by_its_own_text(tmp_path, engine):
    task = _task(tmp_path, {})
    options = RunOptions(sandbox="bubblewrap")
    for text, expected in [
        (PASSING, ("test_half", "pass", None)),
        (FAILING, ("test_half", "fail", 6)),
        (PASSING, ("test_half", "pass", None)),
        (FAILING, ("test_half", "fail", 6)),
    ]:
        run = engine.run(task, Suite("test_calc.py", text), options)
        assert set(_outcomes(run)) == {expected}


REWRITER = """
import pathlib

# Runs before the suite is collected (an initial conftest): plain pytest then imports the new text.
suite = pathlib.Path(__file__).with_name("test_calc.py")
suite.write_text(suite.read_text().replace("== 2", "== 5"))
"""


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
    suite = Suite(
        "test_calc.py", "from calc import half\n\ndef test_half(four, tmp_path, capsys):\n    assert half(four) == 2\n"
    )
    for _ in range(2):
        run = engine.run(task, suite, RunOptions(sandbox="bubblewrap"))
        assert set(_outcomes(run)) == {("test_half", "pass", None)}


def _prepared(engine, task, text: str) -> set[float]:
    """Whether each program's session started from one the runner set up (the runner's `prepared` phase)."""
    pool = engine.pool_for(task, "bubblewrap")
    trees = [engine.cache.baseline(task)] + [engine.cache.candidate(task, c) for c in task.candidates]
    suite = Suite("test_calc.py", text)
    config = initial_config(trees[0].path, suite.rel_path)
    return {
        pool.submit(run_request(tree, suite, task, config=config)).result().phases.get("prepared") for tree in trees
    }


def test_a_plain_task_starts_each_program_from_a_session_set_up_once(tmp_path, engine):
    task = _task(tmp_path, {})
    assert _prepared(engine, task, PASSING) == {1.0}
    run = engine.run(task, Suite("test_calc.py", FAILING), RunOptions(sandbox="bubblewrap"))
    assert set(_outcomes(run)) == {("test_half", "fail", 6)}


def test_a_conftest_on_the_suites_path_makes_each_program_set_its_session_up(tmp_path, engine):
    task = _task(tmp_path, {"conftest.py": OWN_PLUGIN})
    assert _prepared(engine, task, PASSING) == {0.0}


def test_a_configuration_that_names_a_file_to_write_is_set_up_by_each_program(tmp_path, engine):
    # The runner never opens a file a task's configuration names; values alone are set up there.
    assert _prepared(engine, _task(tmp_path / "a", {"pytest.ini": "[pytest]\nlog_file = run.log\n"}), PASSING) == {0.0}
    assert _prepared(engine, _task(tmp_path / "b", {"pytest.ini": "[pytest]\nxfail_strict = true\n"}), PASSING) == {1.0}


CHANNEL = """
import os
import calc

# Read while the module is collected, before pytest reads its capture file back.
os.lseek(1, 0, os.SEEK_SET)
SEEN = os.read(1, 1 << 16)


def test_output_of_another_program_is_not_here():
    if calc.LEAK:
        # Left in the output capture's file, never read back: the next program of this runner
        # must not find it (a capture file shared between programs would be a channel).
        os.write(1, b"SECRET-OF-ANOTHER-PROGRAM")
        os._exit(0)
    assert b"SECRET" not in SEEN
"""


def test_output_a_program_leaves_in_its_capture_never_reaches_the_next_program(tmp_path, engine):
    quiet = "LEAK = False\n"
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": quiet},
        candidates=[
            {"id": f"c{i}", "reference": i == 0, "files": {"calc.py": f"LEAK = {i % 2 == 1}\n"}} for i in range(8)
        ],
    )
    task = load_task(root)
    for _ in range(3):
        run = engine.run(task, Suite("test_channel.py", CHANNEL), RunOptions(sandbox="bubblewrap"))
        quiet_ones = [run.baseline] + [r for c, r in run.results if int(c.id[1:]) % 2 == 0]
        assert {t.outcome for program in quiet_ones for t in program.tests} == {"pass"}


def _prepared_namespace(path: str, text: str, tag: str | None, shipped: str | None) -> dict:
    from prism_lsp.runner import _prism_suitecode as suitecode

    suitecode._prepared.clear()
    suitecode.prepare(path, text, tag, shipped)
    (_, code) = suitecode._prepared[(path, text.encode())]
    namespace: dict = {}
    exec(code, namespace)
    return {"namespace": namespace, "code": code}


def test_a_runner_takes_the_hosts_code_of_the_suite_only_under_its_own_python_and_pytest():
    """The host compiles an edit's suite once for every runner; a runner whose interpreter differs
    (a task image's) compiles the text itself. Here the shipped code is of another text, so which
    one the runner kept shows."""
    from prism_lsp.runner import _prism_suitecode as suitecode

    shipped = suitecode.compiled_for_runners("tests/test_x.py", "def answer():\n    return 'host'\n")
    text = "def answer():\n    return 'text'\n"
    path = "/run/tree/tests/test_x.py"
    same = _prepared_namespace(path, text, suitecode.code_tag(), shipped)
    assert same["namespace"]["answer"]() == "host"
    # Tracebacks and assertion reports name the suite's path in the runner, not the host's placeholder.
    assert same["code"].co_filename == path and same["namespace"]["answer"].__code__.co_filename == path
    other = _prepared_namespace(path, text, "3.9.0|0000|7.0", shipped)
    assert other["namespace"]["answer"]() == "text"
    broken = _prepared_namespace(path, text, suitecode.code_tag(), "not base64 !")
    assert broken["namespace"]["answer"]() == "text"


def test_a_suite_that_does_not_compile_is_shipped_as_nothing():
    from prism_lsp.engine.suite_code import compiled

    assert compiled("test_x.py", "def test_x(:\n    pass\n") == (None, None)
    tag, code = compiled("test_x.py", PASSING)
    assert tag is not None and code


def test_a_suite_whose_compile_warns_is_compiled_by_each_program_under_its_own_warning_filters(tmp_path, engine):
    """`P = "\\d"` warns at compile time; under `filterwarnings = error` plain pytest reports a
    collection error. Code compiled ahead (by the host or the runner) would have swallowed it."""
    from prism_lsp.engine.suite_code import compiled

    text = 'P = "\\d"\n\ndef test_p():\n    assert P\n'
    assert compiled("test_calc.py", text) == (None, None)
    task = _task(tmp_path, {"pytest.ini": "[pytest]\nfilterwarnings =\n    error\n"})
    run = engine.run(task, Suite("test_calc.py", text), RunOptions(sandbox="bubblewrap"))
    assert {p.outcome for p in [run.baseline, *(r for _, r in run.results)]} == {"error"}


def test_the_editors_compile_runs_in_a_process_of_its_own_and_gives_what_a_compile_here_gives():
    from prism_lsp.engine import suite_code

    text = PASSING + "\n# prefetched\n"
    suite_code.prefetch("test_calc.py", text)
    started = suite_code._started[("test_calc.py", text)]
    assert suite_code.compiled("test_calc.py", text) == suite_code._compile("test_calc.py", text)
    assert started.done()

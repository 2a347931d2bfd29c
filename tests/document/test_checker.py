"""Which buffers of a task run against the panel, and what the editor says when one does not.
Pure: `Checker.analyze` runs nothing, `not_a_suite` reads at most the task's pytest config."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from prism_lsp.document.checker import Checker
from prism_lsp.document.standing import state_of
from prism_lsp.server.lenses import build_lenses, file_title
from prism_lsp.server.positions import Lines
from prism_lsp.server.settings import Settings
from prism_lsp.tasks import load_task
from prism_lsp.tasks.suites import DEFAULT_PYTHON_FILES, matches, not_a_suite, python_files

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TASK = FIXTURES / "mean-rounded"
OVERFIT = TASK / "suites" / "test_overfit.py"


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    c = Checker(tmp_path_factory.mktemp("cache"))
    yield c
    c.close()


def _analyze(checker, path: Path, text: str):
    return checker.analyze(path, 1, text, Settings())


def test_a_syntax_error_is_not_run_with_its_line(checker):
    check = _analyze(checker, OVERFIT, OVERFIT.read_text().replace("def test_halfway():", "def test_halfway(:"))
    assert not check.runnable
    assert check.state.reason == "the buffer has a syntax error (line 13)"
    assert state_of(check) == ("idle", "not run: the buffer has a syntax error (line 13)")
    assert file_title(check) == "Prism: not run: the buffer has a syntax error (line 13)"


@pytest.mark.parametrize("text", ["", "from solution import mean_rounded\n", "def helper():\n    return 1\n"])
def test_a_test_file_without_tests_is_not_run_and_says_so(checker, text):
    check = _analyze(checker, TASK / "suites" / "test_new.py", text)
    assert not check.runnable and check.is_suite
    assert state_of(check) == ("idle", "not run: no tests yet") and not check.static
    assert checker.run_panel(check, Settings()) is check


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (TASK / "initial" / "solution.py", "this file is part of the initial program, not a suite"),
        (TASK / "suites" / "helpers.py", "not a test file (pytest collects test_*.py or *_test.py)"),
        (TASK / "conftest.py", "not a test file (pytest collects test_*.py or *_test.py)"),
    ],
)
def test_program_and_other_python_files_get_static_hints_only(checker, path, why):
    text = "def test_like():\n    assert isinstance(f(1), int)\n"
    check = _analyze(checker, path, text)
    assert not check.runnable and not check.is_suite and check.state.reason == why
    assert [f.kind for f in check.static] == ["weak-assertion"]
    assert state_of(check) == ("idle", f"not run: {why}")
    assert build_lenses("file:///x.py", check, check.suite_map, Lines(text)) == []


def test_test_files_by_pytest_default_names_are_suites(checker):
    assert _analyze(checker, OVERFIT, OVERFIT.read_text()).runnable
    assert _analyze(checker, TASK / "suites" / "rounding_test.py", OVERFIT.read_text()).runnable


def test_pytest_python_files_patterns():
    assert matches(Path("/t/test_a.py"), DEFAULT_PYTHON_FILES) and matches(Path("/t/a_test.py"), DEFAULT_PYTHON_FILES)
    assert not matches(Path("/t/solution.py"), DEFAULT_PYTHON_FILES)
    assert not matches(Path("/t/test_a.pyc"), DEFAULT_PYTHON_FILES)
    assert matches(Path("/t/checks/a.py"), ("checks/*.py",)) and not matches(Path("/t/a.py"), ("checks/*.py",))


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("pytest.ini", "[pytest]\npython_files = check_*.py  *_spec.py\n", ("check_*.py", "*_spec.py")),
        ("pytest.ini", "", DEFAULT_PYTHON_FILES),
        ("pyproject.toml", '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n', ("check_*.py",)),
        ("pyproject.toml", '[project]\nname = "x"\n', DEFAULT_PYTHON_FILES),
        ("tox.ini", "[pytest]\npython_files = check_*.py\n", ("check_*.py",)),
        ("setup.cfg", "[tool:pytest]\npython_files = check_*.py\n", ("check_*.py",)),
        ("setup.cfg", "[metadata]\nname = x\n", DEFAULT_PYTHON_FILES),
    ],
)
def test_the_initial_programs_pytest_configuration_is_honoured(tmp_path, name, content, expected):
    (tmp_path / name).write_text(content)
    assert python_files(tmp_path) == expected


def test_a_tasks_own_python_files_decide_what_is_a_suite(tmp_path):
    import shutil

    shutil.copytree(TASK, tmp_path / "task")
    (tmp_path / "task" / "initial" / "pytest.ini").write_text("[pytest]\npython_files = check_*.py\n")
    task = load_task(tmp_path / "task")
    assert not_a_suite(tmp_path / "task" / "suites" / "check_mean.py", task) is None
    assert not_a_suite(tmp_path / "task" / "suites" / "test_mean.py", task) == (
        "not a test file (pytest collects check_*.py)"
    )


def test_an_overlay_candidates_files_are_not_suites(tmp_path):
    task = load_task(TASK)
    overlay = tmp_path / "candidates" / "mine"
    cand = dataclasses.replace(task.candidates[0], kind="overlay", source=overlay)
    task = dataclasses.replace(task, root=tmp_path, initial=tmp_path / "initial", candidates=(cand,))
    assert not_a_suite(overlay / "tests" / "test_x.py", task) == "this file is part of a candidate, not a suite"
    assert not_a_suite(tmp_path / "tests" / "test_x.py", task) is None


def test_a_test_file_inside_the_initial_program_is_a_suite_unless_the_program_owns_it(tmp_path):
    import shutil

    shutil.copytree(TASK, tmp_path / "task")
    initial = tmp_path / "task" / "initial"
    (initial / "tests").mkdir()
    for rel in ("tests/test_author.py", "test_imported.py", "test_patched.py"):
        (initial / rel).write_text("def test_a():\n    assert True\n")
    (initial / "solution.py").write_text("import test_imported\n" + (initial / "solution.py").read_text())
    task = load_task(tmp_path / "task")
    patched = tmp_path / "patched.diff"
    patched.write_text(
        task.candidates[0].source.read_text() + "--- a/test_patched.py\n+++ b/test_patched.py\n"
        "@@ -1,2 +1,2 @@\n def test_a():\n-    assert True\n+    assert 1\n"
    )
    task = dataclasses.replace(
        task, candidates=(dataclasses.replace(task.candidates[0], source=patched), *task.candidates[1:])
    )
    assert not_a_suite(initial / "tests" / "test_author.py", task) is None  # the author's workspace
    program = "this file is part of the initial program, not a suite"
    assert not_a_suite(initial / "test_imported.py", task) == program  # the program imports it
    assert not_a_suite(initial / "test_patched.py", task) == program  # a candidate changes it
    assert not_a_suite(initial / "solution.py", task) == program

"""What the warm runner records per test and per assertion, through the real sandbox."""

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INITIAL = {"pkg/__init__.py": "", "pkg/calc.py": "def half(x):\n    return x // 2\n\n\ndef other():\n    return 0\n"}
CANDIDATE = {"pkg/calc.py": "def half(x):\n    return (x + 1) // 2\n\n\ndef other():\n    return 0\n"}


@pytest.fixture
def task(tmp_path):
    return load_task(
        write_task(
            tmp_path / "task", initial=INITIAL, candidates=[{"id": "reference", "reference": True, "files": CANDIDATE}]
        )
    )


def run(engine, task, text, rel="tests/deep/nested/test_calc.py"):
    result = engine.run(task, Suite(rel, text), RunOptions(sandbox="bubblewrap"))
    return result.baseline, dict(result.results)[task.reference]


def test_per_assertion_outcomes_lines_and_values(engine, task):
    text = (
        "from pkg.calc import half\n\n"
        "def test_even():\n    assert half(4) == 2\n    assert half(6) == 3\n\n"
        "def test_odd():\n    assert half(2) == 1\n    assert half(5) == 3\n"
    )
    baseline, cand = run(engine, task, text)
    tests = {t.name: t for t in baseline.tests}
    assert tests["test_even"].outcome == "pass"
    assert [a.line for a in tests["test_even"].assertions] == [4, 5]
    odd = tests["test_odd"]
    assert odd.outcome == "fail" and odd.line == 9 and odd.message.startswith("assert 2 == 3")
    assert [(a.line, a.outcome) for a in odd.assertions] == [(8, "pass"), (9, "fail")]
    assert odd.def_line == 7
    assert cand.outcome == "pass"


def test_reached_change_separates_missing_inputs_from_weak_checks(engine, task):
    text = (
        "from pkg.calc import half, other\n\n"
        "def test_reaches():\n    assert isinstance(half(3), int)\n\n"
        "def test_elsewhere():\n    assert other() == 0\n"
    )
    _, cand = run(engine, task, text)
    reached = {t.name: t.reached_change for t in cand.tests}
    assert reached == {"test_reaches": True, "test_elsewhere": False}


def test_syntax_error_in_the_suite_is_a_collection_error_at_its_line(engine, task):
    baseline, cand = run(engine, task, "def test_x():\n    assert (1 ==\n\ndef test_y():\n    pass\n")
    for res in (baseline, cand):
        assert res.outcome == "error" and res.reason == "collection"
        assert res.line in (2, 4)
        assert "SyntaxError" in res.message or "never closed" in res.message or "invalid syntax" in res.message


def test_import_error_is_a_collection_error_at_the_import_line(engine, task):
    baseline, _ = run(engine, task, "import os\nfrom pkg.calc import nope\n\ndef test_x():\n    assert nope\n")
    assert baseline.outcome == "error" and baseline.reason == "collection" and baseline.line == 2
    assert "nope" in baseline.message


def test_fixture_error_is_an_error_not_a_rejection(engine, task):
    text = (
        "import pytest\n\n@pytest.fixture\ndef data():\n    raise RuntimeError('broken fixture')\n\n"
        "def test_x(data):\n    assert data\n"
    )
    baseline, _ = run(engine, task, text)
    assert baseline.outcome == "error"
    assert baseline.tests[0].reason == "fixture" and "broken fixture" in baseline.tests[0].message


def test_an_exception_from_the_candidate_is_a_rejection_at_the_calling_line(engine, task):
    baseline, _ = run(engine, task, "from pkg.calc import half\n\ndef test_x():\n    assert half(None) == 0\n")
    assert baseline.outcome == "fail"
    assert baseline.tests[0].line == 4 and "TypeError" in baseline.tests[0].message


def test_selected_tests_only(engine, task):
    text = "def test_a():\n    assert True\n\ndef test_b():\n    assert False\n"
    result = engine.run(task, Suite("test_s.py", text), RunOptions(sandbox="bubblewrap", tests=("test_a",)))
    assert [t.name for t in result.baseline.tests] == ["test_a"] and result.baseline.outcome == "pass"


def test_suite_with_no_tests_is_an_error(engine, task):
    baseline, _ = run(engine, task, "x = 1\n")
    assert baseline.outcome == "error" and baseline.reason == "no-tests"


def test_a_tree_conftest_is_honoured(tmp_path, engine):
    initial = {**INITIAL, "conftest.py": "import pytest\n\n@pytest.fixture\ndef answer():\n    return 42\n"}
    task = load_task(
        write_task(
            tmp_path / "t", initial=initial, candidates=[{"id": "reference", "reference": True, "files": CANDIDATE}]
        )
    )
    baseline, _ = run(engine, task, "def test_a(answer):\n    assert answer == 42\n")
    assert baseline.outcome == "pass"


def test_the_none_backend_gives_the_same_verdicts(engine, task):
    text = "from pkg.calc import half\n\ndef test_odd():\n    assert half(5) == 3\n"
    result = engine.run(task, Suite("tests/test_c.py", text), RunOptions(sandbox="none"))
    assert result.baseline.outcome == "fail" and dict(result.results)[task.reference].outcome == "pass"


def test_an_assert_failing_inside_a_helper_names_where_it_failed(tmp_path, engine):
    initial = {**INITIAL, "checks.py": "def check_half(f, x, want):\n    assert f(x) == want\n"}
    task = load_task(
        write_task(
            tmp_path / "t", initial=initial, candidates=[{"id": "reference", "reference": True, "files": CANDIDATE}]
        )
    )
    text = "from pkg.calc import half\nfrom checks import check_half\n\ndef test_x():\n    check_half(half, 5, 3)\n"
    baseline, _ = run(engine, task, text)
    t = baseline.tests[0]
    assert t.outcome == "fail" and t.line == 5
    assert t.message.startswith("checks.py:2: ")  # not rewritten by pytest: no values to misread

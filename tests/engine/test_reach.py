"""Which candidates a selected run may take from the initial program's run (`engine/reach.py`)."""

from __future__ import annotations

import pytest

from prism_lsp.engine import reach
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.outcome import TestResult as Ran

BASE = '''"""Module."""
import functools

LIMIT = 3


def first(xs):
    """The first."""
    return xs[0]


def last(xs):
    return xs[-1]


class Box:
    def get(self):
        return self.value

    @property
    def size(self):
        return 1

    @functools.lru_cache
    def cached(self):
        return 2
'''

CASES = [
    # (what changes, old text, new text, the bound's first-statement lines or None)
    ("a body's return", "return xs[-1]", "return xs[len(xs) - 1]", {13}),
    ("a body grows a line", "    return xs[-1]\n", "    n = len(xs)\n    return xs[n - 1]\n", {13}),
    ("a method's body", "return self.value", "return self.value or 0", {18}),
    ("a property's body", "        return 1\n", "        return 2\n", {22}),
    ("a comment only", "return xs[0]", "return xs[0]  # the head", set()),
    ("a module constant", "LIMIT = 3", "LIMIT = 4", None),
    ("a signature", "def last(xs):", "def last(xs, default=None):", None),
    ("a docstring", '"""The first."""', '"""The head."""', None),
    ("a cached method's body", "        return 2\n", "        return 3\n", None),
    ("a new function", "class Box:", "def extra():\n    return 1\n\n\nclass Box:", None),
    ("a body dedented out of its function", "    return xs[-1]\n", "    return xs[-1]\nprint('at import')\n", None),
]


@pytest.mark.parametrize(("what", "old", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_change_is_bounded_only_when_it_stays_inside_function_bodies(what, old, new, expected):
    assert old in BASE
    found = reach.bounded_file(BASE, BASE.replace(old, new, 1))
    assert (set(found) if found is not None else None) == expected


def test_a_file_that_does_not_parse_is_not_bounded():
    assert reach.bounded_file(BASE, BASE + "\ndef broken(:\n") is None


def test_marks_are_every_functions_first_statement(tmp_path):
    (tmp_path / "m.py").write_text(BASE)
    # functools.lru_cache'd `cached` too: marks say nothing of which functions a panel changes
    assert reach.marks(tmp_path, {"m.py"}) == {"m.py": [9, 13, 18, 22, 26]}


def _run(*covered: tuple[str, tuple[int, ...]], outcome="fail") -> ProgramResult:
    test = Ran("test_x", outcome, line=4, message="assert 1 == 2", covered=covered)  # type: ignore[arg-type]
    return ProgramResult(outcome=outcome, tests=(test,))  # type: ignore[arg-type]


def test_a_run_reaches_a_change_by_starting_its_body_or_reading_its_file():
    found = reach.Bound({"m.py": frozenset({13})}, {"m.py": {9: 9, 13: 14}})
    assert not reach.reaches(_run(("m.py", (9,))), found)
    assert reach.reaches(_run(("m.py", (9, 13))), found)
    assert reach.reaches(_run(("m.py", (reach.READ,))), found)
    assert not reach.reaches(_run(("other.py", (13,))), found)


def test_a_reused_result_is_the_initial_programs_renumbered_and_reaching_nothing():
    found = reach.Bound({"m.py": frozenset({13})}, {"m.py": {9: 9, 20: 21}})
    reused = reach.reused(_run(("m.py", (9, 20)), ("n.py", (5,))), found)
    assert reused.reused and reused.outcome == "fail"
    assert reused.tests[0].covered == (("m.py", (9, 21)), ("n.py", (5,)))
    assert reused.tests[0].reached_change is False
    assert reused.tests[0].message == "assert 1 == 2"


@pytest.mark.parametrize(
    ("outcome", "test_outcome", "expected"),
    [("pass", "pass", True), ("fail", "fail", True), ("error", "error", False), ("fail", "error", False)],
)
def test_only_a_clean_initial_run_stands_for_a_candidate(outcome, test_outcome, expected):
    test = Ran("t", test_outcome)  # type: ignore[arg-type]
    assert reach.reusable(ProgramResult(outcome=outcome, tests=(test,))) is expected  # type: ignore[arg-type]


# -- on the real runner: a one-test run skips the candidates its test cannot reach ----------------

CALC = """\
def double(x):
    return x + 1


def half(x):
    return x // 2
"""

SUITE = """\
from calc import double, half


def test_double():
    assert double(3) == 6


def test_half():
    assert half(8) == 4


def test_reads_the_source():
    import calc

    with open(calc.__file__) as fh:
        assert "x + 1" in fh.read()
"""


def _task(tmp_path, suite=SUITE):
    from prism_lsp.tasks import load_task
    from tests.conftest import write_task

    fixed = CALC.replace("x + 1", "2 * x")
    return load_task(
        write_task(
            tmp_path / "task",
            initial={"calc.py": CALC, "test_calc.py": suite},
            candidates=[
                {"id": "reference", "reference": True, "files": {"calc.py": fixed}},
                # changes only `half`, which test_double never starts (and keeps the bug)
                {"id": "half-floor", "label": "invalid", "files": {"calc.py": CALC.replace("x // 2", "x >> 1")}},
                # a module-level change: every test may see it
                {"id": "constant", "label": "invalid", "files": {"calc.py": fixed + "\nLIMIT = 3\n"}},
            ],
        )
    )


def _selected(engine, task, suite_text, test, reveal="full"):
    from prism_lsp.engine.session import RunOptions
    from prism_lsp.model.run import Suite

    run = engine.run(task, Suite("test_calc.py", suite_text), RunOptions(tests=(test,), reveal=reveal, confirm=False))
    return run.baseline, {c.id: r for c, r in run.results}


def test_a_candidate_the_test_cannot_reach_gets_the_initial_programs_result(engine, tmp_path):
    task = _task(tmp_path)
    initial, results = _selected(engine, task, SUITE, "test_half")
    # test_half starts half(): the candidate changing it runs; the reference changes only double()
    assert not results["half-floor"].reused
    assert results["reference"].reused and results["reference"].outcome == initial.outcome == "pass"
    assert not results["constant"].reused
    initial, results = _selected(engine, task, SUITE, "test_double")
    assert results["half-floor"].reused
    assert (
        results["half-floor"].outcome == "fail" and results["half-floor"].tests[0].message == initial.tests[0].message
    )
    assert not results["reference"].reused and results["reference"].outcome == "pass"
    assert initial.tests[0].reached_change is None  # the initial program changed nothing


def test_a_test_reading_the_programs_source_runs_everywhere(engine, tmp_path):
    _, results = _selected(engine, _task(tmp_path), SUITE, "test_reads_the_source")
    assert not any(r.reused for r in results.values())
    assert results["reference"].outcome == "fail"  # its source says `2 * x`: a real run


def test_a_change_run_while_the_suite_is_imported_reaches_every_test(engine, tmp_path):
    suite = SUITE.replace("from calc import double, half\n", "from calc import double, half\n\nEIGHT = half(16)\n")
    _, results = _selected(engine, _task(tmp_path, suite), suite, "test_double")
    assert not results["half-floor"].reused


def test_at_counts_no_candidate_is_taken_from_the_initial_program(engine, tmp_path):
    _, results = _selected(engine, _task(tmp_path), SUITE, "test_double", reveal="counts")
    assert not any(r.reused for r in results.values())


def test_a_suite_silencing_the_probes_buys_the_initial_programs_result_and_nothing_else(engine, tmp_path):
    # It says it reached nothing: every bounded candidate takes the initial program's outcome, the
    # same for all of them (the reference included), which a suite reading their source could give.
    suite = "import builtins\nbuiltins.__prism_probe__ = lambda *a: None\n" + SUITE
    initial, results = _selected(engine, _task(tmp_path, suite), suite, "test_half")
    reused = {cid: r for cid, r in results.items() if r.reused}
    assert set(reused) == {"reference", "half-floor"}
    assert {r.outcome for r in reused.values()} == {initial.outcome}
    assert not results["constant"].reused  # a module-level change runs whatever the suite says

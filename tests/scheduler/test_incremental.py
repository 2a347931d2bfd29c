"""The incremental runner against the real engine: only changed tests rerun, and the merged
result equals a fresh run of the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cold_server import cold_checker
from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.document.checker import Checker
from prism_lsp.model.run import Suite
from prism_lsp.server.settings import Settings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    c = Checker(tmp_path_factory.mktemp("cache"))
    yield c
    c.close()


def _outcomes(check):
    run = check.run
    progs = [("initial", run.baseline)] + [(c.id, r) for c, r in run.results]
    return {pid: (r.outcome, tuple((t.name, t.outcome, t.line, t.message) for t in r.tests)) for pid, r in progs}


def test_unchanged_tests_come_from_the_cache_and_match_a_fresh_run(checker, tmp_path):
    text = OVERFIT.read_text()
    first = checker.check(OVERFIT, 1, text, Settings())
    assert first.stats.tests_run == 3
    again = checker.check(OVERFIT, 2, text, Settings())
    assert again.stats.engine_called is False and again.stats.tests_cached == 3
    assert _outcomes(again) == _outcomes(first)

    edited = text.replace("== 3", "in (2, 3)")
    inc = checker.check(OVERFIT, 3, edited, Settings())
    assert inc.stats.tests_run == 1 and inc.stats.tests_cached == 2
    cold = cold_checker(tmp_path)
    try:
        fresh = cold.check(OVERFIT, 3, edited, Settings())
    finally:
        cold.close()
    assert fresh.stats.tests_cached == 0
    assert _outcomes(inc) == _outcomes(fresh)
    assert inc.report.metrics == fresh.report.metrics
    assert [f.model_dump() for f in inc.report.findings] == [f.model_dump() for f in fresh.report.findings]


def test_shared_code_change_reruns_every_test(checker):
    text = OVERFIT.read_text()
    checker.check(OVERFIT, 1, text, Settings())
    shared = text.replace("from solution import mean_rounded", "from solution import mean_rounded\nK = 1")
    check = checker.check(OVERFIT, 2, shared, Settings())
    assert check.stats.tests_run == 3


def test_syntax_error_runs_nothing(checker):
    check = checker.check(OVERFIT, 1, OVERFIT.read_text() + "\ndef broken(:\n", Settings())
    assert check.run is None and check.state.kind == "not-run" and check.suite_map.syntax_errors


def test_runner_runs_a_subset_when_asked(checker):
    task, _ = checker.task_for(OVERFIT)
    suite_map = parse_suite(OVERFIT.read_text())
    run, stats = checker.incremental.run(task, Suite("suites/test_overfit.py", OVERFIT.read_text()), suite_map)
    assert {t.name for t in run.baseline.tests} == {"test_whole_mean", "test_rounds_to_nearest", "test_halfway"}


def test_a_cached_test_that_moved_keeps_correct_lines(checker):
    text = OVERFIT.read_text()
    checker.check(OVERFIT, 1, text, Settings())
    grown = text.replace(
        "    assert mean_rounded([2, 4, 6]) == 4",
        "    assert mean_rounded([2, 4, 6]) == 4\n    assert mean_rounded([3]) == 3\n",
    )
    moved = checker.check(OVERFIT, 2, grown, Settings())
    assert moved.stats.tests_cached == 2
    (rv,) = [f for f in moved.report.findings if f.kind == "rejects-valid"]
    assert grown.splitlines()[rv.line - 1].strip() == "assert mean_rounded([1, 4]) == 3"


MIXIN_SUITE = """\
from unittest import TestCase

from solution import mean_rounded


class MeanChecks:
    def test_whole(self):
        self.assertEqual(mean_rounded(self.values), self.whole)


class PairTests(MeanChecks, TestCase):
    values, whole = [2, 4], 3


class TripleTests(MeanChecks, TestCase):
    values, whole = [2, 4, 6], 4

    def test_halfway(self):
        self.assertEqual(mean_rounded([1, 4]), 3)
"""


def test_unittest_classes_and_a_mixins_tests_are_kept_per_class(checker, tmp_path):
    """Two classes inheriting one mixin method share its text, not its results: each is kept under its
    own name, so an edit of another test reruns that test alone (more-itertools' test_more.py reran
    every inherited test on every edit)."""
    suite = OVERFIT.parent / "test_mixin_in_memory.py"  # never written: the buffer is the suite
    first = checker.check(suite, 1, MIXIN_SUITE, Settings())
    assert first.stats.tests_run == 3
    assert {t.name for t in first.run.baseline.tests} == {
        "PairTests::test_whole",
        "TripleTests::test_whole",
        "TripleTests::test_halfway",
    }
    edited = MIXIN_SUITE.replace("[1, 4]), 3)", "[1, 4]), 3)  # the halfway case")
    inc = checker.check(suite, 2, edited, Settings())
    assert (inc.stats.tests_run, inc.stats.tests_cached) == (1, 2)
    cold = cold_checker(tmp_path)
    try:
        fresh = cold.check(suite, 2, edited, Settings())
    finally:
        cold.close()
    # Merged results are in source order; pytest runs a TestCase's methods in name order.
    assert {p: (o, sorted(ts)) for p, (o, ts) in _outcomes(inc).items()} == {
        p: (o, sorted(ts)) for p, (o, ts) in _outcomes(fresh).items()
    }

"""One real check of a buffer for the pure server tests: the real `Checker`, the real engine and
sandbox, on the `mean-rounded` fixture task. The buffer is never written to disk (the server
checks unsaved text too).

Lines (1-based) the tests pin: the multi-line halfway assert is 9-11; the accented line is 23.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from prism_lsp.engine.redact import redact_run
from prism_lsp.engine.panel import Suite, build_report
from prism_lsp.server.checker import Check, Checker
from prism_lsp.server.settings import Settings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TASK = FIXTURES / "mean-rounded"
PATH = TASK / "suites" / "test_unit_buffer.py"
CANDIDATE_IDS = ["reference", "half-even", "half-away", "half-down", "statistics", "trunc-negative",
                 "consumes-input", "forgets-last", "median", "ceiling"]

# mean([1, 4]) = 2.5: half-even, half-down and statistics give 2, the suite demands 3.
TEXT = '''from solution import mean_rounded


def test_whole_mean():
    assert mean_rounded([2, 4, 6]) == 4


def test_halfway():
    assert mean_rounded(
        [1, 4]
    ) == 3


def test_ignored_kind():
    assert mean_rounded([3, 6]) == 5  # prism: ignore[rejects-valid]


def test_ignored_all():
    assert mean_rounded([5, 8]) == 7  # prism: ignore


def test_accents():
    label = "é€𝄞"; assert mean_rounded([7, 10]) == 9
'''


def run_check(cache: Path, settings: Settings | None = None) -> Check:
    """The buffer checked once through the real panel (as the server does)."""
    checker = Checker(cache)
    try:
        check = checker.check(PATH, 1, TEXT, settings or Settings())
    finally:
        checker.close()
    assert check.has_results, (check.error, check.not_run)
    return check


def at_reveal(check: Check, reveal: str) -> Check:
    """The same run seen at another reveal level (the run reduced and the report rebuilt as the
    checker does; nothing runs again). `check` must be the full-level check."""
    assert check.task is not None and check.run is not None and check.reveal == "full"
    suite = Suite(check.task.suite_rel(PATH), check.text)
    run = redact_run(check.run, reveal, check.text)
    return dataclasses.replace(check, reveal=reveal, run=run, report=build_report(check.task, suite, run, reveal=reveal))

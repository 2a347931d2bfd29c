"""accepts-invalid findings, table-driven over the pure function (no run, no sandbox).

Each row: which tests of an accepted invalid candidate reached its change, and the finding that
must come out: on which line, which test it names, how it teaches, and that it knows the
candidate it is about at every reveal level (while naming it only at `full`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_lsp.judge.findings import TEACH_REACHED, TEACH_UNREACHED, accepts_invalid
from prism_lsp.model import outcome
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.task import Candidate

REF = Candidate("ref", "valid", True, "overlay", Path("/nonexistent/ref"))
BAD = Candidate("bad", "invalid", False, "overlay", Path("/nonexistent/bad"))


def _run(*tests: tuple[str, int, bool | None]) -> ProgramResult:
    return ProgramResult(
        "pass", tuple(outcome.TestResult(n, "pass", reached_change=r, def_line=line) for n, line, r in tests)
    )


@pytest.mark.parametrize(
    "tests,line,named,teaches",
    [
        # The first test reaching the change is where a check can be added; the others are named.
        ((("test_a", 4, False), ("test_b", 8, True), ("test_c", 12, True)), 8, ["test_b", "test_c"], TEACH_REACHED),
        ((("test_a", 4, True),), 4, ["test_a"], TEACH_REACHED),
        # Parametrized cases are one test.
        ((("test_p[1]", 4, True), ("test_p[2]", 4, True)), 4, ["test_p"], TEACH_REACHED),
        # No test reaches the change: on the first test, asking for an input that does.
        ((("test_a", 4, False), ("test_b", 8, False)), 4, [], TEACH_UNREACHED),
        # Reach unknown: said plainly, no advice that could be wrong.
        ((("test_a", 4, None),), 4, [], "no test rejects it"),
    ],
)
@pytest.mark.parametrize("reveal", ["full", "labels", "counts"])
def test_an_invalid_candidate_let_through_is_one_finding(tests, line, named, teaches, reveal):
    pairs = [(REF, _run(*((n, ln, True) for n, ln, _ in tests))), (BAD, _run(*tests))]
    [finding] = accepts_invalid(pairs, reveal)
    assert (finding.kind, finding.line, finding.tests, finding.count) == ("accepts-invalid", line, named, 1)
    assert teaches in finding.message
    assert finding.about == ("bad",)
    assert finding.candidates == (["bad"] if reveal == "full" else [])
    assert ("`bad`" in finding.message) == (reveal == "full")


def test_a_candidate_rejected_or_valid_is_no_accepts_invalid_finding():
    failing = ProgramResult("fail", (outcome.TestResult("test_a", "fail", line=5, reached_change=True, def_line=4),))
    assert accepts_invalid([(REF, _run(("test_a", 4, True))), (BAD, failing)], "full") == []

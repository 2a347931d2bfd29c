"""Below `full`, a candidate's result keeps only what the author already knows (judge/redact.py)."""

from __future__ import annotations

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.judge.redact import UNKNOWN_TEST, redact_result
from prism_lsp.model import outcome
from prism_lsp.model.outcome import AssertionResult, ProgramResult

Run = outcome.TestResult  # not named Test*: pytest would try to collect it

SUITE = """\
import pytest


def helper(x):
    assert x > 0


@pytest.mark.parametrize("x", [1, 2])
def test_a(x):
    assert x == 1


def test_b():
    helper(1)
"""


def test_names_lines_reasons_and_text_are_reduced():
    smap = parse_suite(SUITE)
    asserts = {line for a in smap.all_assertions() for line in range(a.span.start_line, a.span.end_line + 1)}
    raw = ProgramResult(
        outcome="fail",
        reason="secret-word",
        message="program said: SECRET",
        line=999,
        tests=(
            Run("test_a[SECRET-id]", "pass", assertions=(AssertionResult(10, "pass", "x == 1"),)),
            Run(
                "test_a[other-SECRET]",
                "fail",
                line=10,
                message="assert 2 == 1 SECRET",
                def_line=77,
                assertions=(AssertionResult(10, "fail", "2 == 1"), AssertionResult(4242, "fail", "forged")),
            ),
            Run("test_b", "error", line=5, reason="fixture", message="SECRET in helper"),
            Run("test_b", "error", line=3, reason="made-up", message="SECRET"),
            Run("test_SECRET_generated", "fail", line=10, message="SECRET"),
        ),
    )
    out = redact_result(raw, smap, asserts)
    assert "SECRET" not in repr(out)
    assert (out.outcome, out.reason, out.message, out.line) == ("fail", "error", "", None)
    a1, a2, b1, b2, unknown = out.tests
    assert (a1.name, a2.name) == ("test_a[1]", "test_a[2]")
    assert a2.def_line == 9 and a2.line == 10 and [a.line for a in a2.assertions] == [10]
    assert all(a.explanation == "" for t in out.tests for a in t.assertions)
    assert (b1.line, b1.reason) == (5, "fixture"), "a line of the helper's assert is the suite's own"
    assert (b2.line, b2.reason) == (None, "error"), "line 3 is neither in test_b nor an assert"
    assert (unknown.name, unknown.outcome, unknown.line) == (UNKNOWN_TEST, "fail", None)

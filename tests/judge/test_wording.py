"""The rejects-valid wording: `expected 3, got 2 from `x`` only when the source makes it certain.

Pure: pytest's messages here are the exact first lines pytest 8 writes for these asserts
(checked by hand against a real run); the engine is not involved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_lsp.judge.findings import TEACH_OVERSPEC, rejects_valid
from prism_lsp.judge.wording import Compared, compared
from prism_lsp.model import outcome
from prism_lsp.model.task import Candidate


@pytest.mark.parametrize(
    "source,message,expected,got",
    [
        ("assert f() == 3", "assert 2 == 3", "3", "2"),
        ("assert 3 == f()", "assert 3 == 2", "3", "2"),  # the literal on the left
        ("assert f(x) == EXPECTED", "assert 2 == 3", "3", "2"),
        ("assert EXPECTED == f(x)", "assert 3 == 2", "3", "2"),
        ("assert f() == 60 * 60", "assert 2 == (60 * 60)", "(60 * 60)", "2"),  # pytest shows the expression
        ("assert f() == -1", "assert 2 == -1", "-1", "2"),
        ("assert f() == LIMIT - 1", "assert 2 == (10 - 1)", "(10 - 1)", "2"),
        ("assert f() == [1, 2]", "assert [2, 1] == [1, 2]", "[1, 2]", "[2, 1]"),
        ("assert f() == {3, 1}", "assert {2} == {1, 3}", "{1, 3}", "{2}"),
        ("assert f() == {'b': 1, 'a': 2}", "assert {} == {'a': 2, 'b': 1}", "{'a': 2, 'b': 1}", "{}"),
        ("assert f() == 1.5", "assert 2 == 1.5", "1.5", "2"),
        ("assert f() == None", "assert 2 == None", "None", "2"),
        ("assert (f() == 3)", "assert 2 == 3", "3", "2"),
        # the value shown contains ` == `: the literal decides where to cut
        ("assert f() == 'a == b'", "assert 'c == d' == 'a == b'", "'a == b'", "'c == d'"),
        ("assert 'a == b' == f()", "assert 'a == b' == 'c == d'", "'a == b'", "'c == d'"),
    ],
)
def test_equality_with_one_constant_side_names_expected_and_got(source, message, expected, got):
    assert compared(message, source) == Compared(expected, got)


def test_a_multi_line_assert_is_read_as_one_statement():
    source = "assert mean_rounded(\n        [1, 4]\n    ) == 3"
    assert compared("assert 2 == 3", source) == Compared("3", "2")
    assert compared("assert 2 == 3", "assert mean_rounded([1, 4]) \\\n        == 3") == Compared("3", "2")


@pytest.mark.parametrize(
    "source,message",
    [
        ("assert f() < 1", "assert 2 < 1"),
        ("assert f() in (3, 4)", "assert 2 in (3, 4)"),
        ("assert f() is None", "assert 2 is None"),
        ("assert f() != 2", "assert 2 != 2"),
        ("assert f() == g()", "assert 2 == 3"),  # neither side is a constant
        ("assert x == expected", "assert 2 == 3"),  # a lower-case local is not known to be the expectation
        ("assert LIMIT == 3", "assert 2 == 3"),  # both sides constant
        ("assert 1 < f() == 3", "assert 1 < 2 == 3"),  # chained
        ("assert not f() == 3", "assert not 2 == 3"),
        ("assert f() == 3 or g() == 4", "assert (2 == 3 or 5 == 4)"),
        ("assert f() == [X, y]", "assert 2 == [1, 2]"),  # a lower-case name inside
        ("assert f() == 3", "assert 'x == y' == 'z'"),  # the literal is not what pytest showed
        ("assert f() == 'a' * 300", "assert 'b == c' == ('a' * 300)"),  # two cuts, no literal to choose
        ("assert f() == 'xxxxxxxxxx'", "assert 2 == 'xxx...xxx'"),  # truncated by pytest: not provably it
        ("assert f() == 3", "TypeError: unsupported operand"),  # not a comparison message
        ("assert f() == 3", ""),
        ("assert f(  == 3", "assert 2 == 3"),  # not Python
        ("x = 3", "assert 2 == 3"),
    ],
)
def test_anything_uncertain_keeps_the_neutral_form(source, message):
    assert compared(message, source) is None


def test_no_source_means_no_guess():
    assert compared("assert 2 == 3", None) is None
    assert compared("assert 2 == 3", "") is None


@pytest.mark.parametrize(
    "message",
    [
        "values differ — assert 2 == 3",  # the runner's one-line form
        "values differ\nassert 2 == 3",  # pytest's own form: the note, then the comparison
        "values differ\n  more of the note\nassert 2 == 3\n +  where 2 = f()",
    ],
)
def test_the_authors_own_message_is_kept_as_a_note(message):
    assert compared(message, 'assert f() == 3, "values differ"') == Compared("3", "2", "values differ")
    assert Compared("3", "2", "values differ").phrase() == "expected 3, got 2 (values differ)"


def test_multi_line_pytest_explanations_use_only_the_comparison_line():
    message = "assert [2, 2, 2] == [1, 2, 3]\n  \n  At index 0 diff: 2 != 1\n  Use -v to get more diff"
    assert compared(message, "assert [f()] * 3 == [1, 2, 3]") == Compared("[1, 2, 3]", "[2, 2, 2]")


def test_ambiguous_multi_line_messages_keep_the_neutral_form():
    assert compared("a — assert b — assert 2 == 3", "assert f() == 3") is None
    assert compared("note\nassert 1 == 3\nassert 2 == 3", "assert f() == 3") is None


# -- the finding's message -------------------------------------------------

SUITE = (
    "from m import f\n\n\ndef test_x():\n    assert f(\n        1\n    ) == 3\n\n\ndef test_y():\n    assert f() < 1\n"
)
HALF_EVEN = Candidate("half-even", "valid", False, "patch", Path("half-even.diff"), note="rounds half to even")
STATS = Candidate("statistics", "valid", False, "patch", Path("statistics.diff"))
ODD = Candidate("odd", "valid", False, "patch", Path("odd.diff"))


def _failing(*tests: tuple[str, int, str]) -> outcome.ProgramResult:
    # `outcome.TestResult`, not imported by name: pytest would try to collect it
    return outcome.ProgramResult(
        "fail", tuple(outcome.TestResult(name, "fail", line, message, def_line=4) for name, line, message in tests)
    )


def test_rejects_valid_groups_candidates_by_the_values_they_gave():
    pairs = [
        (HALF_EVEN, _failing(("test_x", 5, "assert 2 == 3"))),
        (STATS, _failing(("test_x", 5, "assert 2 == 3"))),
        (ODD, _failing(("test_x", 5, "assert 4 == 3"))),
    ]
    (finding,) = rejects_valid(pairs, "full", SUITE)
    assert finding.message == (
        "rejects valid candidates `half-even` (rounds half to even), `statistics`, `odd` — "
        "expected 3, got 2 from `half-even`, `statistics`; expected 3, got 4 from `odd`. " + TEACH_OVERSPEC
    )
    assert (finding.line, finding.candidates, finding.tests) == (5, ["half-even", "statistics", "odd"], ["test_x"])


def test_rejects_valid_keeps_pytest_line_for_other_comparisons_and_without_the_suite():
    pairs = [(HALF_EVEN, _failing(("test_y", 11, "assert 2 < 1")))]
    (finding,) = rejects_valid(pairs, "full", SUITE)
    assert (
        finding.message
        == f"rejects valid candidate `half-even` (rounds half to even) — `half-even`: assert 2 < 1. {TEACH_OVERSPEC}"
    )
    (old,) = rejects_valid([(HALF_EVEN, _failing(("test_x", 5, "assert 2 == 3")))], "full")
    assert "— `half-even`: assert 2 == 3." in old.message


def test_two_asserts_on_one_line_keep_the_neutral_form():
    suite = "def test_x():\n    assert f() == 2; assert f() == 3\n"
    (finding,) = rejects_valid([(HALF_EVEN, _failing(("test_x", 2, "assert 2 == 3")))], "full", suite)
    assert "`half-even`: assert 2 == 3" in finding.message and "expected" not in finding.message


def test_no_values_and_no_ids_below_full():
    pairs = [(HALF_EVEN, _failing(("test_x", 5, "assert 2 == 3")))]
    (finding,) = rejects_valid(pairs, "labels", SUITE)
    assert finding.message == f"rejects 1 valid candidate. {TEACH_OVERSPEC}"


def test_counts_reveal_says_only_how_many(tmp_path):
    from prism_lsp.judge.findings import build_findings

    baseline = outcome.ProgramResult("fail", (outcome.TestResult("test_x", "fail", 5, "assert 1 == 3", def_line=4),))
    pairs = [(HALF_EVEN, _failing(("test_x", 5, "assert 2 == 3")))]
    (finding,) = build_findings(baseline, pairs, "counts", SUITE)
    assert finding.message == f"rejects 1 valid candidate. {TEACH_OVERSPEC}" and finding.candidates == []
    assert finding.line == 5  # on the assertion that rejected it, as at every level


def _cand(cid: str, label: str) -> Candidate:
    return Candidate(id=cid, label=label, reference=False, kind="overlay", source=Path("."))


def test_an_error_on_many_programs_is_counted_per_label_below_full():
    from prism_lsp.judge.findings import execution_errors

    def broken():
        return outcome.ProgramResult("error", (), reason="collection", message="SyntaxError: bad", line=3)

    pairs = [(_cand(f"v{i}", "valid"), broken()) for i in range(4)] + [(_cand("i1", "invalid"), broken())]
    (labels,) = execution_errors(broken(), pairs, "labels")
    assert (
        labels.message
        == ("could not run on initial program, 4 valid candidates, 1 invalid candidate: collection — SyntaxError: bad")
        and labels.candidates == []
    )
    (counts,) = execution_errors(broken(), pairs, "counts")
    assert counts.message.startswith("could not run on 6 programs: collection")
    (full,) = execution_errors(broken(), pairs, "full")
    assert full.message.startswith("could not run on initial program, v0, v1, v2, v3, i1:")


def test_a_parametrized_test_that_lets_an_invalid_candidate_through_is_one_finding():
    from prism_lsp.judge.findings import accepts_invalid

    cases = tuple(outcome.TestResult(f"test_p[{i}]", "pass", reached_change=True, def_line=7) for i in range(3))
    (finding,) = accepts_invalid([(_cand("bad", "invalid"), outcome.ProgramResult("pass", cases))], "full")
    assert finding.line == 7 and finding.tests == ["test_p"] and finding.candidates == ["bad"]

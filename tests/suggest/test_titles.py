"""Quick-fix titles (issue 23 items 7 and 8): counted as the lenses count, and a relaxation that lets
the initial program through says so."""

from __future__ import annotations

import pytest

from prism_lsp.suggest.build import Suggestion, Verified
from prism_lsp.suggest.edits import Edit
from prism_lsp.suggest.titles import initial_lost, title

EDIT = Edit(0, 0, 0, 0, "")


def _relax(verified: Verified) -> Suggestion:
    return Suggestion("rejects-valid", 9, "assert f([1, 4]) in {2, 3}", EDIT, verified, ["half-even"])


@pytest.mark.parametrize(
    "verified,lost",
    [
        # the suite and the test still fail on the initial program: nothing to say
        (Verified(4, 4, 3, 5, True, True, True, True), ""),
        # the test no longer does (its lens would read `initial: missed`); other tests still catch it
        (Verified(4, 4, 3, 5, True, True, True, False), "this test no longer fails on the initial program"),
        # no test does any more: the suite stops detecting the bug
        (Verified(4, 4, 3, 5, False, True, True, False), "the suite no longer fails on the initial program"),
        # the test never caught it: the edit costs nothing there
        (Verified(4, 4, 3, 5, True, True, False, False), ""),
        # the suite did not detect it before either
        (Verified(4, 4, 3, 5, False, False, False, False), ""),
    ],
)
def test_what_an_edit_costs_on_the_initial_program(verified, lost):
    assert initial_lost(verified) == lost


def test_a_relaxation_that_lets_the_initial_program_through_says_so_in_its_title():
    kept = _relax(Verified(4, 4, 3, 5, True, True, True, True))
    assert (
        title(kept, "full") == "Relax to `assert f([1, 4]) in {2, 3}` (accepts `half-even`; still rejects invalid 3/5)"
    )
    lost = _relax(Verified(4, 4, 3, 5, True, True, True, False))
    assert title(lost, "full") == (
        "Relax to `assert f([1, 4]) in {2, 3}` (accepts `half-even`; still rejects invalid 3/5; "
        "this test no longer fails on the initial program)"
    )
    assert title(lost, "labels").startswith("Relax to `assert f([1, 4]) in {2, 3}` (accepts 1 valid candidate;")


def test_an_added_check_counts_valid_candidates_as_the_lenses_do():
    s = Suggestion("accepts-invalid", 4, "assert f([-1]) == -1", EDIT, Verified(4, 4, 3, 5, True), ["trunc"])
    assert (
        title(s, "full")
        == "Add `assert f([-1]) == -1` (rejects `trunc`; still accepts valid 4/4 besides the reference)"
    )

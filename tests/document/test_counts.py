"""The one wording of the panel's counts (issue 23 item 7): status, lenses, quick fixes and the CLI
all say the valid count without the reference, and say so."""

from __future__ import annotations

import pytest

from prism_lsp.document.counts import invalid_count, panel_line, valid_count


@pytest.mark.parametrize(
    "accepted,total,text",
    [
        (1, 4, "valid 1/4 besides the reference"),
        (4, 4, "valid 4/4 besides the reference"),
        (0, 0, "valid 0/0 besides the reference"),
    ],
)
def test_valid_counts_say_the_reference_is_not_in_them(accepted, total, text):
    assert valid_count(accepted, total) == text


@pytest.mark.parametrize("rejected,total,text", [(3, 5, "invalid 3/5"), (0, 0, "invalid 0/0")])
def test_invalid_counts_are_all_the_invalid_candidates(rejected, total, text):
    assert invalid_count(rejected, total) == text


def test_a_panel_line_is_both_counts():
    assert panel_line(1, 4, 3, 5) == "valid 1/4 besides the reference · invalid 3/5"

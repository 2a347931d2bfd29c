"""Hover without LSP transport: the per-assertion table from a real check, at every reveal level."""

from __future__ import annotations

import pytest

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.server.hover import hover_text
from tests.document.recorded import TEXT, at_reveal, leaks

TAIL = "\n\n_Prism — outcome at this assertion_"  # the table first, the caption after it


@pytest.mark.parametrize("line", [9, 10, 11])
def test_full_shows_every_program_with_its_value_on_any_line_of_the_assert(unit_check, line):
    assert (
        hover_text(unit_check, unit_check.suite_map, line, markdown=True)
        == "\n".join(
            [  # noqa: FLY002 (one row a line reads as the table)
                "| program | label | outcome | value |",
                "|---|---|---|---|",
                "| initial | baseline | fail ✗ | `assert 2 == 3` |",
                "| `reference` | valid (reference) | pass ✓ | `3 == 3` |",
                "| `half-even` | valid | fail ✗ | `assert 2 == 3` |",
                "| `half-away` | valid | pass ✓ | `3 == 3` |",
                "| `half-down` | valid | fail ✗ | `assert 2 == 3` |",
                "| `statistics` | valid | fail ✗ | `assert 2 == 3` |",
                "| `trunc-negative` | invalid | pass ✓ | `3 == 3` |",
                "| `consumes-input` | invalid | pass ✓ | `3 == 3` |",
                "| `forgets-last` | invalid | fail ✗ | `assert 1 == 3` |",
                "| `median` | invalid | fail ✗ | `assert 4 == 3` |",
                "| `ceiling` | invalid | pass ✓ | `3 == 3` |",
            ]
        )
        + TAIL
    )


def test_labels_names_candidates_anonymously_without_values(unit_check):
    text = hover_text(at_reveal(unit_check, "labels"), unit_check.suite_map, 23, markdown=True)
    assert (
        text
        == "\n".join(
            [  # noqa: FLY002
                "| program | label | outcome |",
                "|---|---|---|",
                "| initial | baseline | fail ✗ |",
                "| valid-1 | valid | pass ✓ |",
                "| valid-2 | valid | fail ✗ |",
                "| valid-3 | valid | pass ✓ |",
                "| valid-4 | valid | fail ✗ |",
                "| valid-5 | valid | fail ✗ |",
                "| invalid-1 | invalid | pass ✓ |",
                "| invalid-2 | invalid | pass ✓ |",
                "| invalid-3 | invalid | fail ✗ |",
                "| invalid-4 | invalid | fail ✗ |",
                "| invalid-5 | invalid | pass ✓ |",
            ]
        )
        + TAIL
    )
    assert not leaks(text) and "reference" not in text


@pytest.mark.parametrize("reveal", ["counts", "sealed"])
@pytest.mark.parametrize("line", [5, 9, 23])
def test_below_labels_an_assertion_says_only_the_initial_programs_outcome(unit_check, reveal, line):
    # How many candidates fail at one assertion names the candidates a line flags (issue 21):
    # the hover is the same whichever candidates fail there.
    text = hover_text(at_reveal(unit_check, reveal), unit_check.suite_map, line, markdown=True)
    initial = {5: "pass", 9: "fail", 23: "fail"}[line]
    assert text == f"- initial program: {initial}\n- candidates: whole-suite numbers only at this reveal level" + TAIL


def test_nothing_to_say_off_an_assertion_or_before_a_run(unit_check):
    assert hover_text(unit_check, unit_check.suite_map, 4, markdown=True) is None  # a `def` line
    assert hover_text(unit_check, unit_check.suite_map, 1, markdown=True) is None  # the import
    assert hover_text(None, unit_check.suite_map, 5, markdown=True) is None


def test_an_edited_test_waits_and_a_moved_one_keeps_its_results(unit_check):
    text = "# a new first line\n" + TEXT.replace("[1, 4]", "[1, 5]")
    now = parse_suite(text)
    assert "changed since the last run" in hover_text(unit_check, now, 10, markdown=True)
    moved = hover_text(unit_check, now, 24, markdown=True)
    assert "| `half-even` | valid | fail ✗ | `assert 8 == 9` |" in moved


def test_plain_text_hover_for_clients_without_markdown(unit_check):
    from prism_lsp.server.hover import hover_text

    text = hover_text(unit_check, unit_check.suite_map, 9, markdown=False)
    lines = text.splitlines()
    assert lines[-1] == "Prism — outcome at this assertion" and lines[-2] == ""
    assert lines[0].split() == ["program", "label", "outcome", "value"]
    assert lines[2].split() == ["reference", "valid", "(reference)", "pass", "✓", "3", "==", "3"]
    assert lines[1].index("baseline") == lines[3].index("valid"), "columns are aligned"
    assert not any(mark in text for mark in ("|", "**", "`"))
    counts = hover_text(at_reveal(unit_check, "counts"), unit_check.suite_map, 9, markdown=False)
    assert counts.endswith("Prism — outcome at this assertion") and "**" not in counts

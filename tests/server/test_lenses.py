"""Code lenses without LSP transport: titles per test and for the file, from a real check."""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.document.check import RUNNING, CheckState
from prism_lsp.server.lenses import RUN_PANEL, build_lenses, file_title
from prism_lsp.server.positions import Lines
from tests.document.recorded import TEXT, at_reveal, leaks

URI = "file:///suite/test_unit_buffer.py"


def _titles(check, text=TEXT, encoding="utf-16"):
    lenses = build_lenses(URI, check, parse_suite(text), Lines(text, encoding))
    return [(lens.range.start.line, lens.range.start.character, lens.command.title) for lens in lenses], lenses


def test_one_lens_per_test_and_one_for_the_file(unit_check):
    # mean-rounded's reference changes two executable lines (3, 4); every test calls it on a list.
    titles, lenses = _titles(unit_check)
    assert titles == [
        (0, 0, "Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 2/5"),
        # only forgets-last fails [2, 4, 6]
        (3, 4, "initial: missed · valid 4/4 besides the reference · invalid 1/5 · reaches 2 of 2 changed lines"),
        (7, 4, "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines"),
        (13, 4, "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines"),
        (17, 4, "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines"),
        (21, 4, "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines"),
    ]
    assert all(lens.command.command == RUN_PANEL and lens.command.arguments == [URI] for lens in lenses)


def test_lenses_match_the_reports_verdicts(unit_check):
    report = unit_check.report
    valid = [c for c in report.candidates if c.label == "valid"]
    assert f"valid {sum(c.verdict == 'accepted' for c in valid)}/{len(valid)}" in file_title(unit_check)


def test_an_edited_test_waits_for_the_next_run_and_the_others_move_with_the_buffer(unit_check):
    text = "# a new first line\n" + TEXT.replace("[1, 4]", "[1, 5]")
    titles, _ = _titles(unit_check, text)
    assert titles[1] == (
        4,
        4,
        "initial: missed · valid 4/4 besides the reference · invalid 1/5 · reaches 2 of 2 changed lines",
    )
    assert titles[2] == (8, 4, "initial: ? · valid ?/? besides the reference · invalid ?/? (not run yet)")
    assert titles[3] == (
        14,
        4,
        "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines",
    )


def test_lenses_are_counts_only_at_labels(unit_check):
    full, _ = _titles(unit_check)
    titles, _ = _titles(at_reveal(unit_check, "labels"))
    assert titles == full
    assert not leaks("\n".join(t for _, _, t in titles))


def test_at_counts_a_test_lens_holds_no_panel_number_and_the_file_lens_the_whole_suites(unit_check):
    # Per-test counts would name, test by test, which candidates it rejects (issue 21).
    titles, _ = _titles(at_reveal(unit_check, "counts"))
    assert [t for _, _, t in titles] == [
        "Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 2/5",
        "initial: missed",
        "initial: caught",
        "initial: caught",
        "initial: caught",
        "initial: caught",
    ]


def test_at_sealed_no_lens_holds_a_panel_number(unit_check):
    titles, _ = _titles(at_reveal(unit_check, "sealed"))
    assert [t for _, _, t in titles] == [
        "Prism: sealed · initial: caught",
        "initial: missed",
        "initial: caught",
        "initial: caught",
        "initial: caught",
        "initial: caught",
    ]


def test_no_task_no_lenses_and_no_run_says_why(unit_check):
    import dataclasses

    assert build_lenses(URI, None, parse_suite(TEXT), Lines(TEXT)) == []
    assert file_title(dataclasses.replace(unit_check, task=None)) == "Prism: no task"
    waiting = dataclasses.replace(
        unit_check, run=None, report=None, state=CheckState("not-run", "the buffer has a syntax error (line 3)")
    )
    assert file_title(waiting) == "Prism: not run: the buffer has a syntax error (line 3)"
    assert (
        file_title(dataclasses.replace(unit_check, state=CheckState("failed", "no sandbox")))
        == "Prism: could not run the panel"
    )
    assert file_title(dataclasses.replace(unit_check, run=None, report=None, state=RUNNING)) == "Prism: running…"


def test_lens_columns_follow_the_position_encoding(unit_check):
    text = TEXT + "\n\ndef test_café_ñ():\n    assert mean_rounded([1]) == 1\n"
    for encoding, end in [("utf-16", 15), ("utf-8", 17)]:
        titles, lenses = _titles(unit_check, text, encoding)
        assert lenses[-1].range == types.Range(types.Position(25, 4), types.Position(25, end))
        assert titles[-1][2].endswith("(not run yet)")

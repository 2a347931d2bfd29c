"""Findings of the last run carried into a newer buffer before it runs: only those whose test
(and the suite's shared code) did not change, moved with their test."""

from __future__ import annotations

import dataclasses

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.document.kept_findings import still_holding, with_last_findings
from prism_lsp.server.diagnostics import build_diagnostics
from prism_lsp.server.settings import Settings
from tests.document.recorded import TEXT, at_reveal


def _found(findings):
    return sorted((f.kind, f.line, f.end_line) for f in findings)


def test_an_unchanged_suite_keeps_every_finding(unit_check):
    assert _found(still_holding(unit_check, parse_suite(TEXT))) == _found(
        f for f in unit_check.report.findings if f.kind != "weak-assertion"
    )


def test_findings_move_with_their_test_when_lines_are_added_above(unit_check):
    text = TEXT.replace("def test_halfway():", "# a note\n\ndef test_halfway():")
    kept = _found(still_holding(unit_check, parse_suite(text)))
    assert ("rejects-valid", 11, 11) in kept and ("rejects-valid", 17, 17) in kept and ("rejects-valid", 25, 25) in kept
    assert ("accepts-invalid", 4, 4) in kept  # only comments moved: the suite is the same


def test_an_edited_test_loses_its_findings_and_suite_level_ones_wait_for_the_run(unit_check):
    text = TEXT.replace("[1, 4]", "[1, 5]")  # test_halfway changed
    kept = _found(still_holding(unit_check, parse_suite(text)))
    assert ("rejects-valid", 9, 9) not in kept and ("rejects-valid", 23, 23) in kept
    assert not [k for k in kept if k[0] == "accepts-invalid"]


def test_a_change_to_shared_code_drops_everything(unit_check):
    text = TEXT.replace("from solution import mean_rounded", "from solution import mean_rounded\nK = 1")
    assert still_holding(unit_check, parse_suite(text)) == []


def test_carried_findings_become_diagnostics_for_the_new_buffer(unit_check):
    text = "# first\n" + TEXT.replace("[7, 10]", "[7, 11]")
    now = dataclasses.replace(unit_check, text=text, suite_map=parse_suite(text), run=None, report=None, version=2)
    shown = with_last_findings(now, unit_check)
    lines = [(d.code, d.range.start.line) for d in build_diagnostics(shown, Settings())]
    assert ("rejects-valid", 9) in lines  # the halfway assert, one line down (0-based 9)
    assert ("rejects-valid", 23) not in lines  # test_accents changed
    assert with_last_findings(dataclasses.replace(now, reveal="counts"), unit_check).report is None, (
        "never carried across a reveal level"
    )
    assert with_last_findings(now, at_reveal(unit_check, "counts")).report is None

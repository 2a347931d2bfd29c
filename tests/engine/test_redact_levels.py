"""What of one candidate's run each reveal level keeps, table-driven, and the report built from it.

A suite runs inside the candidate's process, so anything in its result may carry the candidate's
source: a generated test name, a message, an odd line, a reason, a duration. `labels` keeps the
suite's own names and lines only; `counts` the outcome only; `sealed` nothing of any candidate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_lsp.judge.redact import UNKNOWN_TEST, redact_run
from prism_lsp.judge.report import build_report
from prism_lsp.judge.reveal import LEVELS, after_writing, panel_to_run, strictest
from prism_lsp.model.outcome import AssertionResult, ProgramResult
from prism_lsp.model.outcome import TestResult as Ran  # not collected as a test class
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Candidate, Task

SUITE = "from solution import f\n\n\ndef test_one():\n    assert f(1) == 2\n"  # assert on line 5
SECRET = "secret-of-the-candidate"
BASELINE = ProgramResult("fail", (Ran("test_one", "fail", 5, "assert 1 == 2", def_line=4),))
RAW = ProgramResult(
    "fail",
    (
        Ran(
            "test_one",
            "fail",
            5,
            f"assert {SECRET}",
            reason="exited",
            reached_change=True,
            def_line=4,
            assertions=(AssertionResult(5, "fail", SECRET), AssertionResult(77, "fail", SECRET)),
            duration_ms=3.5,
        ),
        Ran(f"test_{SECRET}", "pass", 9, SECRET, reason=SECRET, duration_ms=1.0),
    ),
    reason=SECRET,
    message=SECRET,
    line=77,
    duration_ms=12.0,
)
VALID = Candidate(id="v1", label="valid", reference=False, kind="overlay", source=Path("."))
REF = Candidate(id="ref", label="valid", reference=True, kind="overlay", source=Path("."))
TASK = Task(id="t", root=Path("."), manifest=Path("prism.toml"), initial=Path("."), candidates=(REF, VALID))


def _run() -> PanelRun:
    return PanelRun(BASELINE, [(REF, ProgramResult("pass")), (VALID, RAW)], {}, 10.0)


LABELS = ProgramResult(
    "fail",
    (
        Ran(
            "test_one",
            "fail",
            5,
            "",
            reason="exited",
            reached_change=True,
            def_line=4,
            assertions=(AssertionResult(5, "fail"),),
            duration_ms=3.5,
        ),
        Ran(UNKNOWN_TEST, "pass", reason="error"),
    ),
    reason="error",
    message="",
    line=None,
    duration_ms=12.0,
)


@pytest.mark.parametrize(
    "reveal, kept",
    [
        ("full", [ProgramResult("pass"), RAW]),
        ("labels", [ProgramResult("pass"), LABELS]),
        ("counts", [ProgramResult("pass"), ProgramResult("fail")]),
        ("sealed", []),
    ],
)
def test_what_each_level_keeps_of_a_candidates_run(reveal, kept):
    run = redact_run(_run(), reveal, SUITE)
    assert [r for _, r in run.results] == kept
    assert run.baseline == BASELINE, "the initial program is no secret"
    assert redact_run(run, reveal, SUITE).results == run.results, "reducing twice changes nothing"


@pytest.mark.parametrize(
    "reveal, lines, panel, jsf",
    [
        ("full", [5], True, False),
        ("labels", [5], True, False),
        ("counts", [], True, False),
        ("sealed", [], False, None),
    ],
)
def test_what_each_levels_report_says(reveal, lines, panel, jsf):
    report = build_report(TASK, Suite("test_s.py", SUITE), _run(), reveal=reveal)
    assert [f.line for f in report.findings if f.kind == "rejects-valid"] == lines
    assert (report.panel is not None) == panel and report.metrics.jsf is jsf
    assert report.metrics.detects_baseline is True
    if reveal != "full":
        assert SECRET not in report.model_dump_json()


@pytest.mark.parametrize(
    "levels, expected",
    [
        (("full", "sealed"), "sealed"),
        (("sealed", "counts", "full"), "sealed"),
        (("counts", "labels"), "counts"),
    ],
)
def test_sealed_is_the_strictest(levels, expected):
    assert strictest(*levels) == expected
    assert LEVELS == ("full", "labels", "counts", "sealed")


def test_sealed_runs_the_initial_program_only_and_a_scorer_reads_counts():
    assert panel_to_run(TASK, "sealed").candidates == ()
    assert panel_to_run(TASK, "counts") is TASK
    assert [after_writing(level) for level in LEVELS] == ["full", "labels", "counts", "counts"]

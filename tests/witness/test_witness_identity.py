"""Witnesses attach to the finding about their candidate, whatever order the findings come in.

Pure: a panel run built by hand goes through `build_report` and `attach_witnesses` (no sandbox).
Here an unstable test makes one invalid candidate's verdict unsettled, so the report has no
finding for it while the run's other invalid candidate still has one: the findings no longer
line up one for one with every accepted invalid candidate's, and a witness matched by position
(the old `zip`) named the wrong candidate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_lsp.judge.report import build_report
from prism_lsp.judge.stability import OTHER, Instability
from prism_lsp.model import outcome
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Candidate, Task
from prism_lsp.witness.report import attach_witnesses
from prism_lsp.witness.search import SearchResult, Witness

SUITE = Suite(
    "test_calc.py",
    "from calc import f\n\n\ndef test_a():\n    assert f(1) == 1\n\n\ndef test_b():\n    assert f(2) == 2\n",
)


def _candidate(cid: str, label: str, reference: bool = False) -> Candidate:
    return Candidate(cid, label, reference, "overlay", Path("/nonexistent") / cid)  # type: ignore[arg-type]


def _passes(*reached: tuple[str, int, bool]) -> ProgramResult:
    return ProgramResult(
        "pass", tuple(outcome.TestResult(name, "pass", reached_change=r, def_line=line) for name, line, r in reached)
    )


def _witness(program: str, arg: int, got: str) -> Witness:
    return Witness(program, "calc:f", (arg,), f"f({arg})", "value", "exact", str(arg), {program: got})


@pytest.mark.parametrize("reveal", ["full", "labels"])
def test_a_witness_names_the_candidate_its_finding_is_about(reveal):
    ref, shaky, steady = (
        _candidate("ref", "valid", True),
        _candidate("shaky", "invalid"),
        _candidate("steady", "invalid"),
    )
    task = Task(
        "calc",
        Path("/nonexistent"),
        Path("/nonexistent/prism.toml"),
        Path("/nonexistent/initial"),
        (ref, shaky, steady),
    )
    baseline = ProgramResult(
        "fail",
        (outcome.TestResult("test_a", "fail", line=5, def_line=4), outcome.TestResult("test_b", "pass", def_line=8)),
    )
    run = PanelRun(
        baseline,
        [
            (ref, _passes(("test_b", 8, True))),
            # `shaky` passes with test_a, seen with two outcomes on it: its verdict is not credited.
            (shaky, _passes(("test_a", 4, True))),
            (steady, _passes(("test_b", 8, True))),
        ],
        {},
        1.0,
        unstable=(Instability("test_a", "shaky", ((0, "pass"), (1, "fail")), OTHER, 4),),
    )
    report = build_report(task, SUITE, run, reveal=reveal)
    found = SearchResult({"shaky": _witness("shaky", 1, "7"), "steady": _witness("steady", 2, "9")})
    attach_witnesses(report, task, found, reveal)
    witnessed = [f.witness for f in report.findings if f.kind == "accepts-invalid"]
    steady_name = "steady" if reveal == "full" else "invalid-2"
    assert [(w.call, w.got) if w else None for w in witnessed] == [("f(2)", {steady_name: "9"})]

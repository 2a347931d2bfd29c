"""The kill matrix of a finished check: tests x programs, each cell the test's outcome on that program.

Shown at reveal `full` only (it names every candidate and says which test rejects which).
A cell links to where it was decided: the suite line of the failing assertion (or of the test).
Pure: no LSP.
"""

from __future__ import annotations

from prism_lsp.document.check import Check
from prism_lsp.document.outcomes import outcome_of_test
from prism_lsp.model.outcome import ProgramResult


class NotRevealed(Exception):
    """The matrix is not shown below reveal `full`; the message is for the user."""


def kill_matrix(check: Check) -> dict | None:
    """The matrix of `check`'s run (None before a run); `NotRevealed` below `full`."""
    if check.reveal != "full":
        raise NotRevealed(f"the kill matrix needs reveal = full (now {check.reveal})")
    if check.run is None or check.report is None:
        return None
    programs: list[tuple[dict, ProgramResult]] = [
        (
            {
                "id": "initial",
                "label": "baseline",
                "reference": False,
                "correct": check.report.metrics.detects_baseline,
            },
            check.run.baseline,
        )
    ]
    correct = {c.id: c.correct for c in check.report.candidates}
    for cand, result in check.run.results:
        programs.append(
            (
                {
                    "id": cand.id,
                    "label": cand.label,
                    "reference": cand.reference,
                    "correct": correct.get(cand.id, False),
                },
                result,
            )
        )
    tests = [{"name": t.name, "line": t.name_span.start_line} for t in check.suite_map.tests]
    cells = []
    for test in check.suite_map.tests:
        row = []
        for _, result in programs:
            outcome, line = outcome_of_test(check, result, test.name)
            row.append({"outcome": outcome, "line": line or test.name_span.start_line})
        cells.append(row)
    return {"tests": tests, "programs": [p for p, _ in programs], "cells": cells}

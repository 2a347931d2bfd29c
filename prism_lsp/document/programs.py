"""The programs of a finished check as test items (the editor's Test Explorer), at the reveal level.

One item for the initial program (correct when the suite fails on it) and one per candidate
(correct when its verdict matches its label). A wrong verdict carries where it was decided:
the assertion that rejected a valid candidate (with the compared values at reveal `full`), the
test that failed on nothing for an accepted invalid one. At `counts` no candidate is shown one
by one: two items say how many valid were accepted and invalid rejected; at `sealed` only the
initial program has an item. Pure: no LSP.
"""

from __future__ import annotations

import re

from prism_lsp.document.check import Check
from prism_lsp.judge.reveal import PANEL_SHOWN_AT
from prism_lsp.model.report import CandidateOut, ProgramOut

_COMPARED = re.compile(r"^assert (?P<actual>.+?) == (?P<expected>.+)$")


def program_items(check: Check) -> list[dict]:
    """Items for `check`'s programs (empty before a run); lines are 1-based suite lines."""
    report = check.report
    if report is None:
        return []
    items = [_initial(report.baseline, report.findings, report.detection)]
    if check.reveal not in PANEL_SHOWN_AT:  # sealed: the initial program alone
        return items
    if check.reveal == "counts":
        accepted, valid, rejected, invalid = report.panel_counts()
        items.append(
            _item(
                "valid",
                "valid candidates",
                None,
                accepted == valid,
                f"{accepted} of {valid} valid candidates accepted (the reference left out)",
            )
        )
        items.append(
            _item(
                "invalid",
                "invalid candidates",
                None,
                rejected == invalid,
                f"{rejected} of {invalid} invalid candidates rejected",
            )
        )
        return items
    for cand in report.candidates:
        items.append(_candidate(cand, with_values=check.reveal == "full"))
    return items


def _item(
    item_id: str,
    label: str,
    line: int | None,
    passed: bool,
    message: str = "",
    expected: str | None = None,
    actual: str | None = None,
    reference: bool = False,
) -> dict:
    return {
        "id": item_id,
        "label": label,
        "reference": reference,
        "passed": passed,
        "line": line,
        "message": "" if passed else message,
        "expected": expected,
        "actual": actual,
    }


def _initial(baseline: ProgramOut, findings: list, detection: str = "") -> dict:
    if baseline.outcome == "fail":
        return _item("initial", "initial program", None, True)
    if detection:  # an error of the suite's own making, or a hang the reference does not have
        return _item("initial", f"initial program (detected: {detection})", None, True)
    if baseline.outcome == "error":
        return _item(
            "initial",
            "initial program",
            baseline.line,
            False,
            f"could not run on the initial program: {baseline.message or baseline.reason}",
        )
    line = next((f.line for f in findings if f.kind == "misses-baseline"), None)
    return _item(
        "initial",
        "initial program",
        line,
        False,
        "the suite passes on the initial (buggy) program: it does not detect the bug",
    )


def _candidate(cand: CandidateOut, with_values: bool) -> dict:
    label = f"{cand.id} ({'reference' if cand.reference else cand.label})"
    if cand.correct:
        return _item(cand.id, label, None, True, reference=cand.reference)
    if cand.outcome == "error":
        return _item(
            cand.id,
            label,
            cand.line,
            False,
            f"could not be judged: {cand.message or cand.reason}",
            reference=cand.reference,
        )
    if cand.label == "valid":  # rejected: the first failing test says where and how
        failed = next((t for t in cand.tests if t.outcome == "fail"), None)
        if failed is None:
            return _item(cand.id, label, None, False, "rejected, though valid", reference=cand.reference)
        compared = _COMPARED.match(failed.message.strip()) if with_values else None
        message = (
            f"rejected, though valid: {failed.message}"
            if with_values and failed.message
            else f"rejected, though valid, by {failed.name}"
        )
        return _item(
            cand.id,
            label,
            failed.line or failed.def_line,
            False,
            message,
            compared["expected"] if compared else None,
            compared["actual"] if compared else None,
            cand.reference,
        )
    reached = [t for t in cand.tests if t.reached_change]
    where = reached[0] if reached else (cand.tests[0] if cand.tests else None)
    message = (
        "accepted, though invalid: a test reaches its change but no assertion judges it"
        if reached
        else "accepted, though invalid: no test reaches its change"
    )
    return _item(cand.id, label, where.def_line if where else None, False, message)

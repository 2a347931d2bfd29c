"""The metrics of DESIGN.md, exactly: per task and over many tasks (panel sensitivity: judge/sensitivity.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """One candidate's result as the metrics see it."""

    id: str
    valid: bool
    reference: bool
    outcome: str  # pass | fail | error

    @property
    def accepted(self) -> bool:
        return self.outcome == "pass"

    @property
    def rejected(self) -> bool:
        return self.outcome == "fail"


def harmonic(a: float | None, b: float | None) -> float | None:
    """Harmonic mean; None when either is undefined, 0 when both are 0."""
    if a is None or b is None:
        return None
    if a + b == 0:
        return 0.0
    return 2 * a * b / (a + b)


# Errors on the initial program that are the suite's own making: a test importing the function
# the fix adds, a fixture that calls it (SWT-Bench's fail-to-pass, TestPrism's r(b)).
SUITE_ERRORS = frozenset({"collection", "fixture"})
# The initial program misbehaving under the suite (a hang, a crash, a runaway allocation): the bug
# itself, when the reference passes the same suite in the same sandbox and limits.
PROGRAM_ERRORS = frozenset({"timeout", "memory", "killed", "crash", "output-limit", "exited"})
# Everything else (sandbox, runner, protocol, cancelled, materialize, no-tests, ...) is Prism's
# making or judged nothing: it never detects the initial program.


def detects_initial(outcome: str, reason: str | None, reference_outcome: str | None) -> bool:
    """Whether a suite's outcome on the initial program detects it (DESIGN.md, `detects_baseline`)."""
    if outcome == "fail":
        return True
    if outcome != "error":
        return False
    return reason in SUITE_ERRORS or (reason in PROGRAM_ERRORS and reference_outcome == "pass")


def _reference_outcome(verdicts: Sequence[Verdict]) -> str | None:
    return next((v.outcome for v in verdicts if v.reference), None)


def task_metrics(
    baseline_outcome: str, verdicts: Sequence[Verdict], baseline_reason: str | None = None
) -> dict[str, Any]:
    """detects_baseline, rar, jsf, valid_acceptance, invalid_rejection, h for one task.

    `baseline_reason` is the reason of an `error` on the initial program (see `detects_initial`)."""
    detects = detects_initial(baseline_outcome, baseline_reason, _reference_outcome(verdicts))
    reference = [v for v in verdicts if v.reference]
    rar = detects and bool(reference) and reference[0].accepted
    others = [v for v in verdicts if v.valid and not v.reference]
    invalid = [v for v in verdicts if not v.valid]
    # An error on the initial program that detects it is its verdict; on a candidate, never one.
    no_error = all(v.outcome != "error" for v in verdicts)
    jsf = detects and no_error and all(v.accepted for v in verdicts if v.valid) and all(v.rejected for v in invalid)
    va = sum(v.accepted for v in others) / len(others) if others else None
    ir = sum(v.rejected for v in invalid) / len(invalid) if invalid else None
    h = harmonic(va, ir)
    return {
        "detects_baseline": detects,
        "rar": rar,
        "jsf": jsf,
        "valid_acceptance": va,
        "invalid_rejection": ir,
        "h": None if h is None else round(h, 4),
    }


def aggregate(per_task: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Mean of per-task rates with equal weight, as percentages rounded to two decimals.

    Undefined (None) rates are left out of their mean. H is computed from the
    rounded valid-acceptance and invalid-rejection percentages.
    """
    rows = list(per_task)

    def pct(key: str) -> float | None:
        vals = [float(r[key]) for r in rows if r.get(key) is not None]
        return round(100 * sum(vals) / len(vals), 2) if vals else None

    va, ir = pct("valid_acceptance"), pct("invalid_rejection")
    h = harmonic(va, ir)
    return {
        "tasks": len(rows),
        "detects_baseline": pct("detects_baseline"),
        "rar": pct("rar"),
        "jsf": pct("jsf"),
        "valid_acceptance": va,
        "invalid_rejection": ir,
        "h": None if h is None else round(h, 2),
    }

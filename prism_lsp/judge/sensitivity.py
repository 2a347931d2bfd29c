"""Panel sensitivity: the expected joint success of a suite over every sub-panel of a given size.

A sub-panel keeps the reference and `a` of the n^V other valid and `b` of the n^I invalid
candidates. The suite achieves joint success on it exactly when it detects the baseline and
accepts the reference (F), every chosen valid candidate is one of the s^V it accepts, and every
chosen invalid one is one of the s^I it rejects. Counting subsets gives, exactly,

    E[jsf](a, b) = F · C(s^V, a) / C(n^V, a) · C(s^I, b) / C(n^I, b)

(errors count as not correct). Fractions keep it exact; floats are for printing and plotting.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from prism_lsp.model.report import PanelReport


@dataclass(frozen=True)
class Counts:
    """What the formula needs from one run of a suite on a panel."""

    n_valid: int  # other valid candidates (the reference excluded)
    n_invalid: int
    s_valid: int  # of those, accepted (an error is not)
    s_invalid: int  # invalid ones rejected (an error is not)
    f: bool  # detects the baseline and accepts the reference


def counts_of(report: PanelReport) -> Counts:
    """The counts of a panel report (its verdicts, with errors as not correct)."""
    counts = report.tally_candidates()
    return Counts(
        n_valid=counts.valid,
        n_invalid=counts.invalid,
        s_valid=counts.valid_accepted,
        s_invalid=counts.invalid_rejected,
        f=bool(report.metrics.rar),
    )


def expected_jsf(c: Counts, a: int, b: int) -> Fraction:
    """E[jsf] over the sub-panels with the reference, `a` other valid and `b` invalid candidates."""
    if not (0 <= a <= c.n_valid and 0 <= b <= c.n_invalid):
        raise ValueError(f"a sub-panel needs 0 <= a <= {c.n_valid} and 0 <= b <= {c.n_invalid}, got ({a}, {b})")
    if not c.f:
        return Fraction(0)
    return Fraction(comb(c.s_valid, a), comb(c.n_valid, a)) * Fraction(comb(c.s_invalid, b), comb(c.n_invalid, b))


def grid(c: Counts) -> list[tuple[int, int, Fraction]]:
    """(a, b, E[jsf]) for every sub-panel size, a-major."""
    return [(a, b, expected_jsf(c, a, b)) for a in range(c.n_valid + 1) for b in range(c.n_invalid + 1)]


def curves(c: Counts) -> dict[str, list[tuple[int, int, Fraction]]]:
    """Growing the panel one candidate at a time: only valid, only invalid, and alternating.

    The alternating curve takes (⌊j/2⌋, ⌈j/2⌉) for j = 0, 1, 2... while both fit the panel.
    """
    alternating = []
    j = 0
    while j // 2 <= c.n_valid and (j + 1) // 2 <= c.n_invalid:
        alternating.append((j // 2, (j + 1) // 2))
        j += 1
    shapes = {
        "valid": [(a, 0) for a in range(c.n_valid + 1)],
        "invalid": [(0, b) for b in range(c.n_invalid + 1)],
        "alternating": alternating,
    }
    return {name: [(a, b, expected_jsf(c, a, b)) for a, b in points] for name, points in shapes.items()}


def as_data(c: Counts) -> dict[str, Any]:
    """The whole table as JSON-ready data: each value as an exact fraction and a float."""

    def row(a: int, b: int, v: Fraction) -> dict[str, Any]:
        return {"a": a, "b": b, "size": a + b, "expected_jsf": round(float(v), 6), "exact": str(v)}

    return {
        "n_valid": c.n_valid,
        "n_invalid": c.n_invalid,
        "s_valid": c.s_valid,
        "s_invalid": c.s_invalid,
        "detects_baseline_and_accepts_reference": c.f,
        "grid": [row(*r) for r in grid(c)],
        "curves": {name: [row(*r) for r in rows] for name, rows in curves(c).items()},
    }

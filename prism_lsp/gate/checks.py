"""Whether judged suites pass the gate: thresholds, or no regression against a stored report.

Pure: records in (`scoring.reports.records`), checks out. Rates are DESIGN.md's, aggregated over
the suites with equal weight as percentages (`engine.metrics.aggregate`). A gate that judged
nothing -- no suite, every suite an error, no invalid candidate to reject -- never passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from prism_lsp.gate import DEFAULT_INVALID_REJECTION, DEFAULT_VALID_ACCEPTANCE
from prism_lsp.judge.metrics import aggregate

RATES = ("detects_baseline", "rar", "valid_acceptance", "invalid_rejection", "jsf")
RATE_NAMES = {
    "detects_baseline": "detects the bug",
    "rar": "reference accepted",
    "valid_acceptance": "valid acceptance",
    "invalid_rejection": "invalid rejection",
    "jsf": "joint success",
}


class BaselineError(Exception):
    """A `--baseline` file that cannot be used: names the file and what is wrong."""


@dataclass(frozen=True)
class Thresholds:
    """Percentages (0-100) the overall rates must reach, and whether every suite needs joint success."""

    invalid_rejection: float = DEFAULT_INVALID_REJECTION
    valid_acceptance: float = DEFAULT_VALID_ACCEPTANCE
    require_jsf: bool = False


@dataclass(frozen=True)
class Check:
    passed: bool
    text: str


@dataclass
class GateVerdict:
    checks: list[Check] = field(default_factory=list)
    summary: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    def lines(self) -> list[str]:
        return [("pass: " if c.passed else "FAIL: ") + c.text for c in self.checks]


class _Summary(BaseModel):
    model_config = ConfigDict(extra="ignore")
    detects_baseline: float | None = None
    rar: float | None = None
    valid_acceptance: float | None = None
    invalid_rejection: float | None = None
    jsf: float | None = None


class _Baseline(BaseModel):
    model_config = ConfigDict(extra="ignore")
    schema_version: int
    summary: _Summary


def load_baseline(path: Path) -> dict:
    """The overall rates of a stored `prism gate --json` report; `BaselineError` naming the problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"--baseline {path}: cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"--baseline {path}: not a JSON report ({exc})") from None
    try:
        return _Baseline.model_validate(data).summary.model_dump()
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise BaselineError(
            f"--baseline {path}: key `{key}`: {first['msg']} (expected a `prism gate --json` report)"
        ) from None


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}%"


def judge(records: list[dict], thresholds: Thresholds, baseline: dict | None = None) -> GateVerdict:
    """The gate's checks over `records`; with `baseline`, a check fails only where a rate went down."""
    scored = [r for r in records if r["status"] == "ok"]
    verdict = GateVerdict(summary=aggregate(r["report"]["metrics"] for r in scored))
    add = verdict.checks.append
    if not scored:
        add(
            Check(
                False,
                "judged nothing: no changed test module could be judged"
                if records
                else "judged nothing: the change adds or changes no test module",
            )
        )
        return verdict
    for r in records:
        if r["status"] != "ok":
            add(Check(False, f"{r['suite']} could not be judged: {r['error']}"))
    s = verdict.summary
    if s["invalid_rejection"] is None:
        add(
            Check(
                False,
                "judged nothing against invalid candidates: the panel has none (no mutant of the changed "
                "lines was kept); add invalid candidates to prism.toml",
            )
        )
    if baseline is not None:
        for key in RATES:
            before, now = baseline.get(key), s[key]
            if before is None:
                continue
            if now is None or now < before:
                add(Check(False, f"{RATE_NAMES[key]} went down: {_pct(now)}, was {_pct(before)} (--baseline)"))
            else:
                add(Check(True, f"{RATE_NAMES[key]} {_pct(now)}, was {_pct(before)}"))
        return verdict
    for r in scored:
        m = r["report"]["metrics"]
        if not m["detects_baseline"]:
            add(Check(False, f"{r['suite']} passes on the program before the fix: it does not detect the bug"))
        elif not m["rar"]:
            add(Check(False, f"{r['suite']} rejects the fix itself (the reference)"))
        if thresholds.require_jsf and not m["jsf"]:
            add(Check(False, f"{r['suite']} has no joint success (--require-jsf)"))
    for key, floor, option in (
        ("invalid_rejection", thresholds.invalid_rejection, "--fail-under-invalid-rejection"),
        ("valid_acceptance", thresholds.valid_acceptance, "--fail-under-valid-acceptance"),
    ):
        if s[key] is None:
            continue
        ok = s[key] >= floor
        add(Check(ok, f"{RATE_NAMES[key]} {_pct(s[key])} {'>=' if ok else '<'} {_pct(floor)} ({option})"))
    return verdict

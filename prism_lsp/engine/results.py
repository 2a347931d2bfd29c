"""Parse the runner's JSON answers into `ProgramResult`s and back into report models.

This is where text from a sandbox enters the host: every string a runner answers (test
names, messages, values, reasons) goes through :func:`prism_lsp.model.untrusted.plain`
here, once, so no later consumer (terminal, JSON report, editor) sees control sequences.
"""

from __future__ import annotations

import re

from prism_lsp.model.outcome import AssertionResult, ProgramResult, TestResult
from prism_lsp.model.report import AssertionOut, ProgramOut, TestOut
from prism_lsp.model.untrusted import NAME_LIMIT, plain

_REASON = re.compile(r"[a-z][a-z-]{0,31}")


def _reason(value: object) -> str | None:
    """A reason is a word of the runner's vocabulary; anything else a program wrote is just `error`."""
    if value is None:
        return None
    return value if isinstance(value, str) and _REASON.fullmatch(value) else "error"


def _line(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000_000 else None


def _ms(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0.0


def program_from_runner(data: dict) -> ProgramResult:
    """Build a `ProgramResult` from one runner answer (never raises on odd input)."""
    tests = []
    listed = data.get("tests")
    for t in listed if isinstance(listed, list) else []:
        try:
            tests.append(TestResult(
                name=plain(t["name"], NAME_LIMIT), outcome=_outcome(t["outcome"]), line=_line(t.get("line")),
                message=plain(t.get("message")), reason=_reason(t.get("reason")),
                reached_change=t.get("reached_change") if isinstance(t.get("reached_change"), bool) else None,
                def_line=_line(t.get("def_line")), duration_ms=_ms(t.get("duration_ms")),
                assertions=tuple(AssertionResult(_line(a.get("line")) or 0, _assertion_outcome(a["outcome"]),
                                                 plain(a.get("explanation")))
                                 for a in t.get("assertions") or []),
            ))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    outcome = data.get("outcome")
    if outcome not in ("pass", "fail", "error"):
        return ProgramResult.error("runner", plain(f"the runner answered without an outcome: {data!r:.200}"))
    return ProgramResult(outcome=outcome, tests=tuple(tests), reason=_reason(data.get("reason")),
                         message=plain(data.get("message")), line=_line(data.get("line")),
                         duration_ms=_ms(data.get("duration_ms")))


def _outcome(value: object) -> str:
    if value not in ("pass", "fail", "error"):
        raise ValueError(f"not an outcome: {value!r:.40}")
    return str(value)


def _assertion_outcome(value: object) -> str:
    if value not in ("pass", "fail"):
        raise ValueError(f"not an assertion outcome: {value!r:.40}")
    return str(value)


def test_out(t: TestResult, with_values: bool = True) -> TestOut:
    return TestOut(name=t.name, outcome=t.outcome, line=t.line, message=t.message if with_values else "",
                   reason=t.reason, def_line=t.def_line, reached_change=t.reached_change,
                   assertions=[AssertionOut(line=a.line, outcome=a.outcome, explanation=a.explanation if with_values else "")
                               for a in t.assertions])


def program_out(r: ProgramResult, with_values: bool = True) -> ProgramOut:
    return ProgramOut(outcome=r.outcome, reason=r.reason, message=r.message, line=r.line,
                      tests=[test_out(t, with_values) for t in r.tests])


def outcome_of(tests: list[TestResult] | tuple[TestResult, ...]) -> tuple[str, str | None, str, int | None]:
    """(outcome, reason, message, line) of a program from its tests, by the runner's rule:
    any failing test rejects; otherwise any erroring test makes it an error; otherwise pass.
    """
    if not tests:
        return "error", "no-tests", "no tests were collected from the suite", None
    if any(t.outcome == "fail" for t in tests):
        return "fail", None, "", None
    for t in tests:
        if t.outcome == "error":
            return "error", t.reason, t.message, t.line
    return "pass", None, "", None


def merge_results(cached: dict[str, TestResult], fresh: ProgramResult, keep: list[str]) -> ProgramResult:
    """A program result for the whole suite from cached results of unchanged tests plus a fresh partial run.

    `keep` are the names of tests whose cached result still holds. A fresh run
    that could not run at all, or broke off (program-level error), stays an error.
    """
    if fresh.outcome == "error" and not fresh.tests:
        return fresh
    by_name = {t.name: t for t in fresh.tests}
    for name in keep:
        if name not in by_name and name in cached:
            by_name[name] = cached[name]
    tests = tuple(sorted(by_name.values(), key=lambda t: (t.def_line or 0, t.name)))
    outcome, reason, message, line = outcome_of(tests)
    if fresh.outcome == "error" and outcome_of(fresh.tests)[0] != "error":
        # The run itself broke (a timeout, an exit) after some tests finished: that stays an
        # error, as it is for a whole-suite run, even when a finished test failed.
        outcome, reason, message, line = "error", fresh.reason, fresh.message, fresh.line
    return ProgramResult(outcome=outcome, tests=tests, reason=reason, message=message, line=line,
                         duration_ms=fresh.duration_ms)

"""Turn the runner's `Result`s (validated by `_prism_protocol`) into `ProgramResult`s and
those into report models."""

from __future__ import annotations

from prism_lsp.model.outcome import AssertionResult, ProgramResult, TestResult
from prism_lsp.model.report import AssertionOut, ProgramOut, TestOut
from prism_lsp.runner._prism_protocol import Result


def program_from_runner(result: Result) -> ProgramResult:
    """The `ProgramResult` of one runner answer (already validated by the protocol)."""
    tests = tuple(TestResult(
        name=t.name, outcome=t.outcome, line=t.line, message=t.message, reason=t.reason,  # type: ignore[arg-type]
        reached_change=t.reached_change, def_line=t.def_line, duration_ms=float(t.duration_ms),
        assertions=tuple(AssertionResult(a.line or 0, a.outcome, a.explanation)  # type: ignore[arg-type]
                         for a in t.assertions),
    ) for t in result.tests)
    return ProgramResult(outcome=result.outcome, tests=tests, reason=result.reason,  # type: ignore[arg-type]
                         message=result.message, line=result.line, duration_ms=float(result.duration_ms))


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

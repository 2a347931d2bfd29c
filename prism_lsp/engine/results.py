"""Turn the runner's `Result`s (validated by `_prism_protocol`) into `ProgramResult`s and
those into report models.

This is where text from a sandbox enters the host: the protocol checks types, and every
string a runner answers (test names, messages, values, reasons) goes through
:func:`prism_lsp.model.untrusted.plain` here, once, so no later consumer (terminal, JSON
report, editor) sees control sequences; a reason is a word, a line a positive number.
"""

from __future__ import annotations

import threading

from prism_lsp.model.outcome import AssertionResult, Outcome, ProgramResult, TestResult, known_reason
from prism_lsp.model.report import AssertionOut, ProgramOut, TestOut
from prism_lsp.model.untrusted import NAME_LIMIT, plain
from prism_lsp.runner._prism_protocol import Result, program_rule

_OUTCOMES = ("pass", "fail", "error")


def _reason(value: object) -> str | None:
    """A reason is a word of the runner's vocabulary (`model.outcome.REASONS`); anything else a program wrote is just `error`."""
    return known_reason(value)


def _line(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10_000_000 else None


def _ms(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0.0


def program_from_runner(result: Result) -> ProgramResult:
    """The `ProgramResult` of one runner answer (types validated by the protocol; text made plain here).

    A test or assertion with an outcome outside the vocabulary is dropped; a program's, an error."""
    tests = tuple(
        TestResult(
            name=plain(t.name, NAME_LIMIT),
            outcome=t.outcome,  # type: ignore[arg-type] # checked against _OUTCOMES below
            line=_line(t.line),
            message=plain(t.message),
            reason=_reason(t.reason),
            reached_change=t.reached_change if isinstance(t.reached_change, bool) else None,
            def_line=_line(t.def_line),
            duration_ms=_ms(t.duration_ms),
            covered=tuple(
                (plain(rel, NAME_LIMIT), tuple(sorted({n for n in lines if _line(n)})))
                for rel, lines in sorted(t.covered.items())
            ),
            assertions=tuple(
                AssertionResult(_line(a.line) or 0, a.outcome, plain(a.explanation))  # type: ignore[arg-type]
                for a in t.assertions
                if a.outcome in ("pass", "fail")
            ),
        )
        for t in result.tests
        if t.outcome in _OUTCOMES
    )
    if result.outcome not in _OUTCOMES:
        return ProgramResult.error("runner", f"the runner answered an unknown outcome {result.outcome!r:.40}")
    return ProgramResult(
        outcome=result.outcome,  # type: ignore[arg-type] # checked against _OUTCOMES above
        tests=tests,
        reason=_reason(result.reason),
        message=plain(result.message),
        line=_line(result.line),
        duration_ms=_ms(result.duration_ms),
    )


def test_out(t: TestResult, with_values: bool = True) -> TestOut:
    """The report's view of one test result. Memoised by identity: results taken from the cache
    are the same objects run after run (`ResultCache.get_at`), and a 589-test module's report was
    rebuilt model by model on every edit. Report models are never changed once made."""
    key = (id(t), with_values)
    hit = _OUTS.get(key)
    if hit is not None and hit[0] is t:
        return hit[1]
    out = TestOut(
        name=t.name,
        outcome=t.outcome,
        line=t.line,
        message=t.message if with_values else "",
        reason=t.reason,
        def_line=t.def_line,
        reached_change=t.reached_change,
        assertions=[
            AssertionOut(line=a.line, outcome=a.outcome, explanation=a.explanation if with_values else "")
            for a in t.assertions
        ],
    )
    with _OUTS_LOCK:
        if len(_OUTS) >= _OUTS_CAP:  # a few documents' panels; past it, start again
            _OUTS.clear()
        _OUTS[key] = (t, out)  # the result is held, so its id is not reused while the entry lives
    return out


_OUTS: dict[tuple[int, bool], tuple[TestResult, TestOut]] = {}
_OUTS_LOCK = threading.Lock()
_OUTS_CAP = 20_000


def program_out(r: ProgramResult, with_values: bool = True) -> ProgramOut:
    return ProgramOut(
        outcome=r.outcome,
        reason=r.reason,
        message=r.message,
        line=r.line,
        tests=[test_out(t, with_values) for t in r.tests],
    )


def outcome_of(tests: list[TestResult] | tuple[TestResult, ...]) -> tuple[Outcome, str | None, str, int | None]:
    """(outcome, reason, message, line) of a program from its tests, by the runner's rule:
    any failing test rejects; otherwise any erroring test makes it an error; otherwise pass.
    """
    if not tests:
        return "error", "no-tests", "no tests were collected from the suite", None
    verdict, errored = program_rule(tests)
    if errored is not None:
        return "error", errored.reason, errored.message, errored.line
    return "fail" if verdict == "fail" else "pass", None, "", None


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
    return ProgramResult(
        outcome=outcome, tests=tests, reason=reason, message=message, line=line, duration_ms=fresh.duration_ms
    )

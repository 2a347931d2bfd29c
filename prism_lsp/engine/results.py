"""Parse the runner's JSON answers into `ProgramResult`s and back into report models."""

from __future__ import annotations

from prism_lsp.model.outcome import AssertionResult, ProgramResult, TestResult
from prism_lsp.model.report import AssertionOut, ProgramOut, TestOut


def program_from_runner(data: dict) -> ProgramResult:
    """Build a `ProgramResult` from one runner answer (never raises on odd input)."""
    tests = []
    for t in data.get("tests") or []:
        try:
            tests.append(TestResult(
                name=str(t["name"]), outcome=t["outcome"], line=t.get("line"), message=t.get("message") or "",
                reason=t.get("reason"), reached_change=t.get("reached_change"), def_line=t.get("def_line"),
                duration_ms=float(t.get("duration_ms") or 0),
                assertions=tuple(AssertionResult(a.get("line") or 0, a["outcome"], a.get("explanation") or "")
                                 for a in t.get("assertions") or []),
            ))
        except (KeyError, TypeError, ValueError):
            continue
    outcome = data.get("outcome")
    if outcome not in ("pass", "fail", "error"):
        return ProgramResult.error("runner", f"the runner answered without an outcome: {data!r:.200}")
    return ProgramResult(outcome=outcome, tests=tuple(tests), reason=data.get("reason"),
                         message=data.get("message") or "", line=data.get("line"),
                         duration_ms=float(data.get("duration_ms") or 0))


def test_out(t: TestResult, with_values: bool = True) -> TestOut:
    return TestOut(name=t.name, outcome=t.outcome, line=t.line, message=t.message if with_values else "",
                   reason=t.reason, def_line=t.def_line, reached_change=t.reached_change,
                   assertions=[AssertionOut(line=a.line, outcome=a.outcome, explanation=a.explanation if with_values else "")
                               for a in t.assertions])


def program_out(r: ProgramResult, with_values: bool = True) -> ProgramOut:
    return ProgramOut(outcome=r.outcome, reason=r.reason, message=r.message, line=r.line,
                      tests=[test_out(t, with_values) for t in r.tests])

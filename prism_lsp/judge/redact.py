"""What of a candidate's run may reach the author below reveal `full`.

A suite runs inside every candidate's process, so anything it puts in its own result
(test names it generates, assertion messages, error text, odd line numbers, reasons) can
carry the candidate's source back to the author. Below `full`, each candidate's result is
reduced here, before any report, finding, hover, lens or status is built from it, to what
the author already knows or the level promises:

- test names: the suite's own tests (as the suite text defines them), parametrized cases
  numbered `[1]`, `[2]`... in run order; a name the suite text does not define becomes
  :data:`UNKNOWN_TEST`;
- lines: only lines of that test, or of an `assert` statement of the suite;
- reasons: the runner's fixed vocabulary, anything else `error`;
- messages, values compared and error text: none.

At `counts` a candidate's result keeps its outcome only (no test, line, assertion, reason or
duration): a suite whose test k fails only on the program whose source hash starts with k
would otherwise name the valid candidates' hashes by which lines flag them. At `sealed` no
candidate result is left at all (the panel does not run: :func:`judge.reveal.panel_to_run`).

The initial program is no secret (the author has it), so its result is kept whole. At
`full` nothing is removed. The per-test cache keeps the raw results; only what leaves
the engine is reduced.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from prism_lsp.analysis.suite_map import SuiteMap, TestInfo, parse_suite, test_for_name
from prism_lsp.model.outcome import AssertionResult, ProgramResult, TestResult, known_reason
from prism_lsp.model.run import PanelRun

UNKNOWN_TEST = "(a test the suite text does not define)"


def redact_run(run: PanelRun, reveal: str, suite_text: str) -> PanelRun:
    """`run` as the author may see it at `reveal` (the same object at `full`)."""
    if reveal == "full":
        return run
    if reveal == "sealed":
        return replace(run, results=[])
    if reveal == "counts":
        return replace(run, results=[(c, outcome_only(r)) for c, r in run.results])
    suite_map = parse_suite(suite_text)
    assert_lines = {line for a in suite_map.all_assertions() for line in range(a.span.start_line, a.span.end_line + 1)}
    results = [(c, redact_result(r, suite_map, assert_lines)) for c, r in run.results]
    return replace(run, results=results)


def outcome_only(result: ProgramResult) -> ProgramResult:
    """One candidate's result as `counts` shows it: pass, fail or error, and nothing that says where or why."""
    return ProgramResult(outcome=result.outcome)


def redact_result(result: ProgramResult, suite_map: SuiteMap, assert_lines: set[int]) -> ProgramResult:
    """One candidate's result without anything the program could have written."""
    cases: Counter[str] = Counter()
    tests = []
    for t in result.tests:
        info = test_for_name(suite_map, t.name)
        tests.append(_test(t, info, cases, assert_lines))
    line = result.line if result.line in assert_lines else None
    return ProgramResult(
        outcome=result.outcome,
        tests=tuple(tests),
        reason=_reason(result.reason),
        message="",
        line=line,
        duration_ms=result.duration_ms,
        cached=result.cached,
    )


def _test(t: TestResult, info: TestInfo | None, cases: Counter[str], assert_lines: set[int]) -> TestResult:
    if info is None:
        return TestResult(name=UNKNOWN_TEST, outcome=t.outcome, reason=_reason(t.reason))
    name = info.name
    if "[" in t.name:  # a parametrized case: its id is computed by the program, its number is not
        cases[name] += 1
        name = f"{name}[{cases[name]}]"
    start, end = info.span.start_line, info.span.end_line

    def ours(line: int | None) -> int | None:
        return line if line is not None and (start <= line <= end or line in assert_lines) else None

    return TestResult(
        name=name,
        outcome=t.outcome,
        line=ours(t.line),
        message="",
        reason=_reason(t.reason),
        reached_change=t.reached_change,
        def_line=info.name_span.start_line,
        assertions=tuple(AssertionResult(a.line, a.outcome) for a in t.assertions if ours(a.line) is not None),
        duration_ms=t.duration_ms,
    )


def _reason(reason: str | None) -> str | None:
    return known_reason(reason)

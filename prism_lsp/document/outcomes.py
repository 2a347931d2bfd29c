"""Per-test and per-assertion views of a checked run, and anchoring them in a newer buffer (no LSP).

Lenses and hover are asked about the buffer as it is now, while the last run may
be for an older version. A test whose text did not change keeps its results: its
lines are shifted by where the test moved (:func:`anchor`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from prism_lsp.analysis.suite_map import SuiteMap, TestInfo, same_test, test_at_line, test_for_name
from prism_lsp.document.check import Check
from prism_lsp.judge.reveal import anonymous_ids
from prism_lsp.model.outcome import ProgramResult, TestResult


@dataclass(frozen=True)
class TestSummary:
    """How one test fared: on the initial program, and valid accepted (the reference left out) / invalid rejected."""

    __test__ = False

    initial: str  # caught | missed | error | not run
    valid_accepted: int
    valid_total: int
    invalid_rejected: int
    invalid_total: int


@dataclass(frozen=True)
class AssertionRow:
    """One program at one assertion."""

    program: str  # an id, or an anonymous name when the panel is not fully revealed
    label: str  # baseline | valid | invalid (| reference appended in `role`)
    reference: bool
    outcome: str  # pass | fail | error | not reached
    value: str


def anchor(check: Check, now: SuiteMap, line: int) -> tuple[TestInfo, int] | None:
    """The test at 1-based `line` of the current buffer and the same line in the checked version,
    when that test's text is unchanged since the check; else None."""
    test = test_at_line(now, line)
    if test is None:
        return None
    old = same_test(check.suite_map, test)
    if old is None:
        return None
    return old, line - test.span.start_line + old.span.start_line


def _tests_of(result: ProgramResult, suite_map: SuiteMap, name: str) -> list[TestResult]:
    return _grouped(result, suite_map).get(name, [])


# (result, map) -> that program's results by suite test: lenses ask once per test (589 on a large
# module), and sorting every result each time made one lens request 24 s. Keyed by identity:
# results and maps are never changed once made; the entries hold both, so no id is reused meanwhile.
_GROUPS: dict[tuple[int, int], tuple[ProgramResult, SuiteMap, dict[str, list[TestResult]]]] = {}
_GROUPS_LOCK = threading.Lock()
_GROUPS_CAP = 64  # programs of the few checks in use at once (each document's last run and check)


def _grouped(result: ProgramResult, suite_map: SuiteMap) -> dict[str, list[TestResult]]:
    key = (id(result), id(suite_map))
    with _GROUPS_LOCK:
        hit = _GROUPS.get(key)
    if hit is not None and hit[0] is result and hit[1] is suite_map:
        return hit[2]
    groups: dict[str, list[TestResult]] = {}
    for t in result.tests:
        info = test_for_name(suite_map, t.name)
        if info is not None:
            groups.setdefault(info.name, []).append(t)
    with _GROUPS_LOCK:  # lenses, hover and the matrix ask from the server's threads
        while len(_GROUPS) >= _GROUPS_CAP:
            _GROUPS.pop(next(iter(_GROUPS)))
        _GROUPS[key] = (result, suite_map, groups)
    return groups


def _outcome(tests: list[TestResult]) -> str | None:
    if not tests:
        return None
    if any(t.outcome == "fail" for t in tests):
        return "fail"
    if any(t.outcome == "error" for t in tests):
        return "error"
    return "pass"


def outcome_of_test(check: Check, result: ProgramResult, name: str) -> tuple[str, int | None]:
    """The outcome of test `name` on one program of `check`'s run (`not run` when it has none),
    and the suite line that decided a failure or an error (None otherwise)."""
    tests = _tests_of(result, check.suite_map, name)
    outcome = _outcome(tests)
    if outcome is None:
        return ("error", result.line) if result.outcome == "error" else ("not run", None)
    decided = next((t.line for t in tests if t.outcome == outcome and t.line is not None), None)
    return outcome, decided if outcome != "pass" else None


def test_summary(check: Check, name: str) -> TestSummary | None:
    """Counts for the test called `name` in the checked version (None without a run)."""
    if check.run is None:
        return None
    smap = check.suite_map
    base = _outcome(_tests_of(check.run.baseline, smap, name))
    initial = {"fail": "caught", "pass": "missed", "error": "error"}.get(base or "", "not run")
    # Without the reference, as the status bar and the file lens count (valid_acceptance's rule).
    valid = [(c, _outcome(_tests_of(r, smap, name))) for c, r in check.run.results if c.valid and not c.reference]
    invalid = [(c, _outcome(_tests_of(r, smap, name))) for c, r in check.run.results if not c.valid]
    return TestSummary(
        initial, sum(o == "pass" for _, o in valid), len(valid), sum(o == "fail" for _, o in invalid), len(invalid)
    )


test_summary.__test__ = False  # type: ignore[attr-defined]


def assertion_rows(check: Check, name: str, start_line: int, end_line: int) -> list[AssertionRow]:
    """Each program's outcome at the assertion on lines `start_line..end_line` of test `name`."""
    if check.run is None or check.task is None:
        return []
    names = anonymous_ids(check.task.candidates, check.reveal)
    programs = [("initial", "baseline", False, check.run.baseline)]
    programs += [(names[c.id], c.label, c.reference, r) for c, r in check.run.results]
    rows = []
    for program, label, ref, result in programs:
        outcome, value = _at_assertion(_tests_of(result, check.suite_map, name), start_line, end_line, result)
        rows.append(AssertionRow(program, label, ref, outcome, value))
    return rows


def _at_assertion(tests: list[TestResult], start: int, end: int, program: ProgramResult) -> tuple[str, str]:
    if not tests:
        return ("error", _first(program.message)) if program.outcome == "error" else ("not run", "")
    hits = [a for t in tests for a in t.assertions if start <= a.line <= end]
    failed = [a for a in hits if a.outcome == "fail"]
    if failed:
        return "fail", _first(failed[0].explanation)
    for t in tests:
        if t.outcome in ("fail", "error") and t.line is not None and start <= t.line <= end:
            return t.outcome, _first(t.message)
    if hits:
        return "pass", _first(hits[-1].explanation)
    errored = next((t for t in tests if t.outcome == "error"), None)
    if errored is not None:
        return "error", _first(errored.message)
    return "not reached", ""


def _first(text: str) -> str:
    text = (text or "").strip()
    return text.splitlines()[0] if text else ""

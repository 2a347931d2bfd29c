"""The programs of a finished check as test items (the editor's Test Explorer), at the reveal level.

One item for the initial program (correct when the suite fails on it) and one per candidate
(correct when its verdict matches its label). A wrong verdict carries where it was decided:
the assertion that rejected a valid candidate (with the compared values at reveal `full`), the
test that failed on nothing for an accepted invalid one. At `counts` no candidate is shown one
by one: two items say how many valid were accepted and invalid rejected; at `sealed` only the
initial program has an item. Each item says its `kind` (initial, reference, valid, invalid; at
`counts` the two groups), how long the suite ran on it (`duration_ms`), and at reveal `full`
its `tests`: each test's outcome there, with the compared values of a failing assertion (which
test rejects which candidate is the answer key, so below `full` no test is listed).

One item runs alone (`prism/runProgram`, a Test Explorer item): :func:`program_to_run` says
which program an item's id names and refuses what the level does not show one by one (a
candidate at `counts` or `sealed`, a test below `full`); :func:`one_item` is that program's
item from the run. Pure: no LSP.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from prism_lsp.document.check import Check
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT, anonymous_ids
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.report import CandidateOut, ProgramOut, TestOut
from prism_lsp.model.task import Task

if TYPE_CHECKING:  # the witness packages load on first use (server start: bench/server_start.py)
    from prism_lsp.witness.search import Witness

_COMPARED = re.compile(r"^assert (?P<actual>.+?) == (?P<expected>.+)$")
MAX_TESTS = 500  # tests listed per program (a generated suite of thousands lists its first ones)


def program_items(check: Check) -> list[dict]:
    """Items for `check`'s programs (empty before a run); lines are 1-based suite lines."""
    report = check.report
    if report is None:
        return []
    full = check.reveal == "full"
    durations = _durations(check)
    initial = _initial(report.baseline, report.findings, report.detection)
    items = [_extend(initial, "initial", durations.get("initial"), report.baseline, full)]
    if check.reveal not in PANEL_SHOWN_AT:  # sealed: the initial program alone
        return items
    if check.reveal == "counts":
        accepted, valid, rejected, invalid = report.panel_counts()
        items.append(
            _extend(
                _item(
                    "valid",
                    "valid candidates",
                    None,
                    accepted == valid,
                    f"{accepted} of {valid} valid candidates accepted (the reference left out)",
                ),
                "valid",
            )
        )
        items.append(
            _extend(
                _item(
                    "invalid",
                    "invalid candidates",
                    None,
                    rejected == invalid,
                    f"{rejected} of {invalid} invalid candidates rejected",
                ),
                "invalid",
            )
        )
        return items
    for cand in report.candidates:
        kind = "reference" if cand.reference else cand.label
        items.append(_extend(_candidate(cand, with_values=full), kind, durations.get(cand.id), cand, full))
    return items


class NotRunAlone(Exception):
    """An item that cannot run by itself at this reveal level (or names no program); the message is for the user."""


def program_to_run(task: Task, reveal: str, item_id: str, test: str | None = None) -> str:
    """The program (`initial` or a candidate's real id) the item `item_id` of `prism/programs` names,
    when it may run alone at `reveal` with `test` (a test of the suite, or None for all)."""
    if test is not None and reveal != "full":
        raise NotRunAlone(f"at reveal {reveal} the tests are not listed program by program: run the whole program")
    if item_id == "initial":
        return "initial"
    if reveal not in LINES_SHOWN_AT:
        raise NotRunAlone(f"at reveal {reveal} the candidates are not shown one by one: run the panel")
    real = {shown: cid for cid, shown in anonymous_ids(task.candidates, reveal).items()}.get(item_id)
    if real is None:
        raise NotRunAlone(f"no program {item_id!r} in the panel of {task.id}")
    return real


def one_item(check: Check, item_id: str) -> dict | None:
    """The item of `item_id` from a check of one program (`Checker.run_program`), named as in the
    whole panel's items (at `labels` a lone candidate would otherwise be renumbered)."""
    items = program_items(check)
    if item_id == "initial":
        return items[0] if items else None
    if len(items) != 2:  # the initial program and the one candidate
        return None
    found = items[1]
    return {**found, "id": item_id, "label": item_id + found["label"][len(found["id"]) :]}


def with_witness(item: dict, witness: Witness | None) -> dict:
    """`item` (an accepted invalid candidate's) with the input that tells it apart from every valid
    candidate: `{call, expected, got}`, as the report's witnesses say them (only at `full` and `labels`,
    where the caller searched one)."""
    if witness is None or item["passed"]:
        return item
    from prism_lsp.witness.report import expected_text

    got = next(iter(witness.got.values()), "")
    return {**item, "witness": {"call": witness.assertion_call, "expected": expected_text(witness), "got": got}}


def _durations(check: Check) -> dict[str, float]:
    """How long the suite ran on each program (ms), by program id; nothing before a run."""
    if check.run is None:
        return {}
    results: list[tuple[str, ProgramResult]] = [("initial", check.run.baseline)]
    results += [(cand.id, result) for cand, result in check.run.results]
    return {pid: result.duration_ms for pid, result in results if result.duration_ms > 0}


def _extend(
    item: dict, kind: str, duration_ms: float | None = None, program: ProgramOut | None = None, full: bool = False
) -> dict:
    tests = [_test(t) for t in program.tests[:MAX_TESTS]] if full and program is not None else []
    return {**item, "kind": kind, "duration_ms": duration_ms, "tests": tests}


def _test(test: TestOut) -> dict:
    compared = _COMPARED.match(test.message.strip()) if test.outcome == "fail" else None
    return {
        "name": test.name,
        "outcome": test.outcome,
        "line": test.line or test.def_line,
        "def_line": test.def_line,
        "message": test.message,
        "expected": compared["expected"] if compared else None,
        "actual": compared["actual"] if compared else None,
    }


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

"""Suggestions, verified on the panel before they are offered.

- accepts-invalid / misses-baseline: the witness's check goes at the end of the test that
  reaches the candidate's change (matching its indentation), or into a new test right after
  it (or at the end) when that test is parametrized, fails on a valid candidate or already
  received a check. All of them are verified by one run of the suite with every edit made:
  each edited or new test must pass on every valid candidate and fail on the programs it is
  meant to reject (one check per test keeps that exact).
- rejects-valid: the failing `assert CALL == VALUE` is relaxed to what the valid candidates
  produce (a view they agree in, else membership in their values), verified by a run of
  its own: no valid candidate fails there any more, and every invalid candidate the
  original suite rejected is still rejected.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.findings import build_findings
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task
from prism_lsp.suggest.edits import (
    Edit,
    append_to_test_edit,
    apply_edits,
    failing_assert,
    fresh_name,
    imports_pytest,
    new_test_edit,
    replace_assert_edit,
    snake,
    statement_text,
    test_names,
    witness_body,
)
from prism_lsp.witness import BASELINE, PanelSearch, Witness, prober_for, search_panel
from prism_lsp.witness.values import OPAQUE, VIEWS, decode, literal, round_trips


@dataclass(frozen=True)
class Verified:
    """What the edited suite's run showed. Valid candidates are counted without the reference, as
    the status and lenses count them (the edit must pass on the reference to be offered at all)."""

    valid_accepted: int
    valid_total: int
    invalid_rejected: int
    invalid_total: int
    detects_baseline: bool
    detected_before: bool = True  # the suite failed on the initial program before the edit
    test_caught_before: bool = False  # the edited test failed on the initial program before the edit
    test_catches: bool = False  # ... and after it


def _others(results: list) -> list:
    """The valid candidates' results without the reference's."""
    return [(c, r) for c, r in results if c.valid and not c.reference]


@dataclass
class Suggestion:
    kind: str  # the finding it answers: accepts-invalid | misses-baseline | rejects-valid
    line: int  # 1-based line of that finding (where the editor shows it)
    statement: str  # what the edit writes, in one line
    edit: Edit
    verified: Verified
    fixes: list[str] = field(default_factory=list)  # program ids it newly rejects / accepts ("initial" too)
    witness: Witness | None = None
    adds: list[str] = field(default_factory=list)  # tests a relaxation adds to keep rejecting what it rejected


def _accepted(r: ProgramResult) -> bool:
    return r.outcome == "pass"


def _test(r: ProgramResult, name: str) -> str | None:
    return next((t.outcome for t in r.tests if t.name == name), None)


def _reached_test(run: PanelRun, program: str) -> str | None:
    """The first test that reached `program`'s change (None for the initial program or none)."""
    for c, r in run.results:
        if c.id == program:
            reached = [t for t in r.tests if t.reached_change and "[" not in t.name]
            return reached[0].name if reached else None
    return None


def _common_passes(run: PanelRun) -> list:
    """Tests that pass on every valid candidate (only those may receive a check: a failing one
    could not say whether the check holds)."""
    valid = [r for c, r in run.results if c.valid]
    if not valid:
        return []
    return [t for t in valid[0].tests if all(_test(r, t.name) == "pass" for r in valid)]


def _witness_suggestions(
    task: Task,
    suite: Suite,
    run: PanelRun,
    search: PanelSearch,
    session: EngineSession,
    options: RunOptions,
    taken: set[str],
) -> list[Suggestion]:
    tree = ast.parse(suite.text)
    wanted = [c.id for c, r in run.results if not c.valid and _accepted(r)]
    if run.baseline.outcome == "pass":
        wanted.append(BASELINE)
    groups: dict[str, list[Witness]] = {}
    for pid in wanted:
        w = search.result.witnesses.get(pid)
        if w is not None:
            groups.setdefault(statement_text(w), []).append(w)
    if not groups:
        return []
    has_pytest = imports_pytest(tree)
    planned: list[tuple[str, list[Witness], Edit]] = []
    extended: set[str] = set()  # tests that already received a check: one per test keeps each verifiable
    valid_pass = {t.name for t in _common_passes(run)}
    for ws in groups.values():
        w = ws[0]
        after = _reached_test(run, w.program)
        body = witness_body(w, has_pytest)
        if after and after not in extended and after in valid_pass:
            inside = append_to_test_edit(suite.text, tree, after, body)
            if inside is not None:
                extended.add(after)
                planned.append((after, ws, inside))
                continue
        fn = w.entry.split(":")[1]
        base = f"test_{snake(fn)}_leaves_input_unchanged" if w.kind == "mutates" else f"test_{snake(fn)}_case"
        name = fresh_name(base, taken)
        planned.append((name, ws, new_test_edit(suite.text, tree, name, body, after)))
    text = apply_edits(suite.text, [e for _, _, e in planned])
    # Only the edited and new tests decide (the others' outcomes are the original run's).
    check = session.run(task, Suite(suite.rel_path, text), replace(options, tests=tuple(n for n, _, _ in planned)))
    valid = [(c, r) for c, r in check.results if c.valid]
    before_valid = sum(_accepted(r) for _, r in _others(run.results))
    invalid = [(c, r) for c, r in run.results if not c.valid]
    out = []
    for name, ws, edit in planned:
        if not all(_test(r, name) == "pass" for _, r in valid):
            continue  # it would reject a valid candidate (or could not run there): never offered
        fails = [c.id for c, r in check.results if not c.valid and _test(r, name) == "fail"]
        base_fails = _test(check.baseline, name) == "fail"
        targets = {w.program for w in ws}
        fixed = [p for p in fails if p in targets] + ([BASELINE] if base_fails and BASELINE in targets else [])
        if not fixed:
            continue
        rejected = {c.id for c, r in invalid if r.outcome == "fail"} | set(fails)
        verified = Verified(
            before_valid,
            len(_others(run.results)),
            len(rejected),
            len(invalid),
            run.baseline.outcome == "fail" or base_fails,
            run.baseline.outcome == "fail",
            False,
            base_fails,
        )
        kind = "misses-baseline" if fixed == [BASELINE] else "accepts-invalid"
        line = edit.start_line + 1
        out.append(
            Suggestion(
                kind,
                line,
                statement_text(ws[0]),
                edit,
                verified,
                sorted(set(fails) | ({BASELINE} if base_fails else set())),
                ws[0],
            )
        )
    return out


def _approx(decoded: list, call: str) -> tuple[str, Callable[[object], bool]] | None:
    """`assert CALL == pytest.approx(X)` when the valid candidates return floats that differ only by
    rounding (within pytest.approx's own relative tolerance, or a stated one up to 1e-3)."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in decoded):
        return None
    if not any(isinstance(v, float) for v in decoded) or not all(math.isfinite(v) for v in decoded):
        return None
    first = decoded[0]
    spread = max(abs(v - first) for v in decoded)
    if spread == 0:
        return None
    scale = abs(first) or 1.0
    for rel, written in ((1e-6, ""), (1e-4, ", rel=1e-4"), (1e-3, ", rel=1e-3")):
        if spread <= rel * scale:
            return (
                f"assert {call} == pytest.approx({literal(first)}{written})",
                lambda v, rel=rel: (
                    isinstance(v, (int, float))
                    and not isinstance(v, bool)
                    and math.isclose(v, first, rel_tol=rel, abs_tol=1e-12)
                ),
            )
    return None


def _relaxations(values: list, call: str, has_pytest: bool = True) -> list[tuple[str, Callable[[object], bool]]]:
    """Relaxed statements for `call`, strongest first, from the valid candidates' values, each with
    the test it applies to a returned value (to foresee which invalid candidates it lets through).
    `pytest.approx` is offered only to a suite that imports pytest."""
    out: list[tuple[str, Callable[[object], bool]]] = []
    decoded = [decode(v) for v in values]
    for view in VIEWS[1:]:
        keys = [_view_key(v, view) for v in decoded]
        if all(k is not None for k in keys) and all(k == keys[0] for k in keys):
            out.append((f"assert {view.wrap(call)} == {literal(view.apply(decoded[0]))}", _same_view(view, keys[0])))
    approx = _approx(decoded, call) if has_pytest else None
    if approx is not None:
        out.append(approx)
    distinct = list(dict.fromkeys(repr(v) for v in decoded))
    objs = [decode(v) for v in distinct]
    try:
        group = set(objs)
        if round_trips(group):
            out.append((f"assert {call} in {literal(group)}", lambda v: repr(v) in distinct))
    except TypeError:
        out.append((f"assert {call} in [{', '.join(literal(o) for o in objs)}]", lambda v: repr(v) in distinct))
    return out


def _same_view(view, key: str | None) -> Callable[[object], bool]:
    """Whether a value, seen through `view`, is the one all valid candidates agree on."""
    return lambda v: _view_key(v, view) == key


def _view_key(value: object, view) -> str | None:
    try:
        seen = view.apply(value)
    except (TypeError, ValueError):
        return None
    return repr(seen) if round_trips(seen) else None


def _fails_only_at(run: PanelRun, program: str, line: int) -> bool:
    """`program` failed the suite, and only at `line`."""
    for c, r in run.results:
        if c.id == program:
            failing = [t for t in r.tests if t.outcome != "pass"]
            return r.outcome == "fail" and bool(failing) and all(t.line == line for t in failing)
    return False


def _compensation(
    task: Task,
    suite: Suite,
    tree: ast.Module,
    session: EngineSession,
    options: RunOptions,
    lost: set[str],
    taken: set[str],
    search: PanelSearch,
) -> list[tuple[str, list[str]]] | None:
    """New tests (name, body) rejecting every program of `lost`, or None when one has no witness."""
    found = search.result.witnesses
    if not lost <= set(found):
        found = search_panel(session, task, suite.text, sandbox=options.sandbox, targets=lost).result.witnesses
    if not lost <= set(found):
        return None
    tests: dict[str, tuple[str, list[str]]] = {}
    for pid in sorted(lost):
        w = found[pid]
        fn = snake(w.entry.split(":")[1])
        if statement_text(w) not in tests:
            base = f"test_{fn}_leaves_input_unchanged" if w.kind == "mutates" else f"test_{fn}_case"
            tests[statement_text(w)] = (fresh_name(base, taken), witness_body(w, imports_pytest(tree)))
    return list(tests.values())


def _relax_suggestions(
    task: Task,
    suite: Suite,
    run: PanelRun,
    search: PanelSearch,
    session: EngineSession,
    options: RunOptions,
    taken: set[str],
) -> list[Suggestion]:
    tree = ast.parse(suite.text)
    by_line: dict[int, set[str]] = {}
    tests_at: dict[int, set[str]] = {}  # the tests failing at each line (whose lens an edit there changes)
    for c, r in run.results:
        if c.valid and r.outcome == "fail":
            for t in r.tests:
                if t.outcome == "fail" and t.line:
                    by_line.setdefault(t.line, set()).add(c.id)
                    tests_at.setdefault(t.line, set()).add(t.name)
    if not by_line:
        return []
    calls = {c.source: c for c in search.calls}
    valid_programs = [p for p in search.programs.values() if p.valid]
    prober = prober_for(session.pool_for(task, options.sandbox), task)
    rejected_before = {c.id for c, r in run.results if not c.valid and r.outcome == "fail"}
    out = []
    for line, rejected_valid in sorted(by_line.items()):
        target = failing_assert(suite.text, tree, line, set(calls))
        if target is None:
            continue
        call = calls[target.call_source]
        seen = prober.probe(valid_programs, call.entry, [repr(call.args)])
        behaviours = [seen[p.id][0] for p in valid_programs]
        if not all(b.judged and not b.exception and decode(b.value) is not OPAQUE for b in behaviours):
            continue  # only values the valid candidates return can be written into the suite
        only_here = [p for p in search.programs.values() if p.id in rejected_before and _fails_only_at(run, p.id, line)]
        theirs = prober.probe(only_here, call.entry, [repr(call.args)])
        for statement, accepts in _relaxations([b.value for b in behaviours], target.call_source, imports_pytest(tree)):
            # Invalid candidates rejected only here, whose value the relaxed assert accepts, would get
            # through: the same edit adds their witnesses (the run below checks the forecast).
            lost = {
                pid
                for pid, (b,) in theirs.items()
                if b.judged and not b.exception and decode(b.value) is not OPAQUE and accepts(decode(b.value))
            }
            extra: list[tuple[str, list[str]]] | None = []
            for _ in range(2):
                if lost:
                    extra = _compensation(task, suite, tree, session, options, lost, taken, search)
                    if extra is None:
                        break
                edit = replace_assert_edit(suite.text, tree, target, statement, extra or [])
                check = session.run(task, Suite(suite.rel_path, apply_edits(suite.text, [edit])), options)
                missed = rejected_before - {c.id for c, r in check.results if not c.valid and r.outcome == "fail"}
                if not missed or missed <= lost:
                    break
                lost |= missed  # the forecast missed some (an error, a value it could not read): once more
            if extra is None:
                continue
            still_failing = any(
                c.valid
                and any(t.outcome != "pass" and t.line == line for t in r.tests)
                or (c.valid and r.outcome == "error")
                for c, r in check.results
            )
            rejected_now = {c.id for c, r in check.results if not c.valid and r.outcome == "fail"}
            if still_failing or not rejected_before <= rejected_now:
                continue
            valid = _others(check.results)
            names = tests_at[line]
            verified = Verified(
                sum(_accepted(r) for _, r in valid),
                len(valid),
                len(rejected_now),
                sum(not c.valid for c, _ in check.results),
                check.baseline.outcome == "fail",
                # the initial program's outcome before and after: a relaxed assert may let it through
                run.baseline.outcome == "fail",
                any(_test(run.baseline, n) == "fail" for n in names),
                any(_test(check.baseline, n) == "fail" for n in names),
            )
            out.append(
                Suggestion(
                    "rejects-valid",
                    line,
                    statement,
                    edit,
                    verified,
                    sorted(rejected_valid),
                    adds=[name for name, _ in extra] if lost else [],
                )
            )
            break
    return out


def suggest(
    session: EngineSession,
    task: Task,
    suite: Suite,
    run: PanelRun,
    options: RunOptions = RunOptions(),
    search: PanelSearch | None = None,
) -> list[Suggestion]:
    """Every verified suggestion for `suite` after its panel run `run` (reveal is the caller's job)."""
    try:
        ast.parse(suite.text)
    except (SyntaxError, ValueError):
        return []
    if search is None:
        # Every invalid candidate, not only those let through: a relaxation may need a witness for
        # one the original assert rejected, and probes of all programs run in parallel anyway.
        search = search_panel(session, task, suite.text, sandbox=options.sandbox)
    taken = test_names(ast.parse(suite.text))  # test names, shared so no two suggestions add the same one
    found = _witness_suggestions(task, suite, run, search, session, options, taken)
    found += _relax_suggestions(task, suite, run, search, session, options, taken)
    _on_finding_lines(found, run, suite.text)
    return sorted(found, key=lambda s: (s.line, s.kind))


def _on_finding_lines(found: list[Suggestion], run: PanelRun, text: str) -> None:
    """Put each witness suggestion on the line of the finding it answers (where the editor shows
    that finding), not where its new test goes."""
    findings = build_findings(run.baseline, run.results, "full", text)
    for s in found:
        if s.kind == "accepts-invalid":
            hit = next((f for f in findings if f.kind == s.kind and set(f.candidates) & set(s.fixes)), None)
        elif s.kind == "misses-baseline":
            hit = next((f for f in findings if f.kind == s.kind), None)
        else:
            continue
        if hit is not None:
            s.line = hit.line


def apply_all(text: str, suggestions: list[Suggestion]) -> str:
    return apply_edits(text, [s.edit for s in suggestions])

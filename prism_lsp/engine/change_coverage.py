"""The paper's coverage measures of a suite, on the reference's run: ΔC and entry coverage.

- **change coverage (ΔC)**: of the reference's executable changed lines (first lines of the
  statements its change touched, `runner/_prism_lines.py`), the share some test of the suite runs;
- **entry coverage**: of the executable lines in the entry points' spans (reference state), the
  share some test runs.

What the runner sends back is the suite's own word (it runs in the reference's process), so it is
only ever intersected with lines the host computed from the reference's files: a suite can lower
or raise its count within those, never name a file or line of its own. Where the task has a
verifier (its trusted tests), ΔC counts only the changed lines the verifier runs on the reference,
as the paper does (`trusted_lines`, one extra run per reference and verifier text); without one,
every executable changed line.

What is shown follows the reveal level: lines at `full`, per-test numbers at `labels`, the
suite's numbers only at `counts`, nothing at `sealed` (they describe the hidden reference).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from prism_lsp.engine.requests import entry_specs, run_request
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT
from prism_lsp.model.outcome import ProgramResult, TestResult
from prism_lsp.model.report import CoverageOut, PanelReport
from prism_lsp.model.task import Task
from prism_lsp.runner._prism_lines import source_lines
from prism_lsp.runner._prism_protocol import RunRequest

if TYPE_CHECKING:
    from prism_lsp.model.run import PanelRun, Suite

# Files of the reference read to count lines: a change touching more is counted on its first ones.
MAX_FILES = 64
MAX_FILE_BYTES = 2 << 20

Lines = dict[str, set[int]]
# (reference tree digest, verifier text) -> the changed lines the verifier runs; a few tasks at a time.
_TRUSTED: dict[tuple[str, str], dict[str, tuple[int, ...]]] = {}
_TRUSTED_KEPT = 32


def _module_file(tree: Path, module: str, roots: tuple[str, ...]) -> str | None:
    for root in dict.fromkeys((".", "src", *roots)):
        base = Path(root).joinpath(*module.split("."))
        for rel in (base.with_suffix(".py"), base / "__init__.py"):
            if (tree / rel).is_file():
                return rel.as_posix()
    return None


def _read(tree: Path, rel: str) -> bytes | None:
    path = tree / rel
    try:
        if not rel.endswith(".py") or path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def measured(task: Task, suite: Suite, tree_path: Path, changed: dict[str, tuple[int, ...]]) -> tuple[Lines, Lines]:
    """(executable changed lines, executable lines of the entry points' spans) of one program tree."""
    functions: dict[str, list[str]] = {}
    for spec in entry_specs(task, suite.text):
        module, _, function = spec.partition(":")
        rel = _module_file(tree_path, module, task.pythonpath)
        if rel is not None:
            functions.setdefault(rel, []).append(function)
    change: Lines = {}
    entry: Lines = {}
    for rel in sorted(set(changed) | set(functions))[:MAX_FILES]:
        source = _read(tree_path, rel)
        if source is None:
            continue
        fc, fe = _source_lines(source, frozenset(changed.get(rel, ())), tuple(functions.get(rel, [])))
        c, e = set(fc), set(fe)
        if c:
            change[rel] = c
        if e:
            entry[rel] = e
    return change, entry


@lru_cache(maxsize=64)
def _source_lines(
    source: bytes, changed: frozenset[int], functions: tuple[str, ...]
) -> tuple[frozenset[int], frozenset[int]]:
    """`source_lines`, once per file text: every report of a one-test edit asks again for the same
    5,000-line module (0.2 s a parse)."""
    c, e = source_lines(source, set(changed), list(functions))
    return frozenset(c), frozenset(e)


def _reached(tests: tuple[TestResult, ...] | list[TestResult], wanted: Lines) -> Lines:
    out: Lines = {}
    for t in tests:
        for rel, lines in t.covered:
            hit = wanted.get(rel, set()).intersection(lines)
            if hit:
                out.setdefault(rel, set()).update(hit)
    return out


def _count(lines: Lines) -> int:
    return sum(len(v) for v in lines.values())


def _out(wanted: Lines, tests: list[tuple[str, TestResult]], reveal: str) -> CoverageOut:
    reached = _reached([t for _, t in tests], wanted)
    total, hit = _count(wanted), _count(reached)
    cases: dict[str, list[TestResult]] = {}
    for name, t in tests:  # a parametrized test's cases together: the editor shows one lens per test
        cases.setdefault(name.split("[", 1)[0], []).append(t)
    per_test = {name: _count(_reached(ts, wanted)) for name, ts in cases.items()} if reveal in LINES_SHOWN_AT else {}
    full = reveal == "full"
    return CoverageOut(
        reached=hit,
        total=total,
        ratio=round(hit / total, 4) if total else None,
        tests=per_test,
        lines={rel: sorted(v) for rel, v in sorted(reached.items())} if full else {},
        missed={
            rel: sorted(v - reached.get(rel, set())) for rel, v in sorted(wanted.items()) if v - reached.get(rel, set())
        }
        if full
        else {},
    )


def trusted_lines(task: Task, run: PanelRun, submit: Callable[[RunRequest], ProgramResult]) -> PanelRun:
    """`run` with the reference's executable changed lines its verifier runs (`trusted_lines`),
    when the task has a verifier and the reference ran; `submit` runs one request to its result."""
    from prism_lsp.model.run import Suite

    ref = next((c for c, _ in run.results if c.reference), None)
    if task.verifier is None or ref is None or ref.id not in run.trees:
        return run
    try:
        suite = Suite(task.suite_rel(task.verifier), task.verifier.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return run
    tree = run.trees[ref.id]
    key = (tree.digest, suite.text)
    if key not in _TRUSTED:
        result = submit(run_request(tree, suite, task))
        if result.outcome == "error" and not result.tests:
            return run  # a verifier that could not run narrows nothing
        change, _ = measured(task, suite, tree.path, tree.changed)
        _TRUSTED[key] = {rel: tuple(sorted(v)) for rel, v in _reached(result.tests, change).items()}
        while len(_TRUSTED) > _TRUSTED_KEPT:
            del _TRUSTED[next(iter(_TRUSTED))]
    return replace(run, trusted_lines=_TRUSTED[key])


def coverage_fields(task: Task, suite: Suite, run: PanelRun, reveal: str) -> dict[str, CoverageOut | None]:
    """The report's `change_coverage` and `entry_coverage` of the (raw, unredacted) `run`, as
    `reveal` shows them; None when the reference did not run or the level shows no panel number."""
    ref = next(((c, r) for c, r in run.results if c.reference), None)
    if reveal not in PANEL_SHOWN_AT or ref is None or ref[0].id not in run.trees or not ref[1].tests:
        return {"change_coverage": None, "entry_coverage": None}
    tree = run.trees[ref[0].id]
    change, entry = measured(task, suite, tree.path, tree.changed)
    if run.trusted_lines is not None:  # the verifier's changed lines only
        change = {rel: v & set(run.trusted_lines.get(rel, ())) for rel, v in change.items()}
        change = {rel: v for rel, v in change.items() if v}
    tests = list(ref[1].tests)
    names = [t.name for t in tests]
    if reveal == "labels":
        # The names the suite text gives (a program may name its tests anything): redact's.
        from prism_lsp.judge.redact import redact_run

        shown = redact_run(replace(run, results=[ref]), reveal, suite.text).results[0][1]
        names = [t.name for t in shown.tests]
    named = list(zip(names, tests, strict=True))
    return {"change_coverage": _out(change, named, reveal), "entry_coverage": _out(entry, named, reveal)}


def reach_text(report: PanelReport | None, test: str) -> str:
    """What test `test` (a suite function's name) reaches of the reference's change, for its lens:
    "reaches 4 of 6 changed lines"; '' when the report has no per-test number for it."""
    measure = report.change_coverage if report is not None else None
    if measure is None or test not in measure.tests or not measure.total:
        return ""
    return f"reaches {measure.tests[test]} of {measure.total} changed line{'s' if measure.total != 1 else ''}"

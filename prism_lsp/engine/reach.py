"""Which candidates a selected run (a one-test edit) need not run: those whose change no selected
test reaches on the initial program.

A candidate's change is *bounded* when the two versions of every file it changes differ only
inside the bodies of some functions (`bounded`): the same module with those bodies emptied, the
same docstrings, no function decorated by anything that could answer without running the body (a
cache). Then a run that on the initial program never starts one of those bodies, never reads the
changed files (as data: a test comparing the program's source) and starts no process, runs the
same code on the candidate, step for step, and gets the same outcomes: those are the candidate's
(`reused`), and it is not run. Anything else (a module-level change, a new or removed file, an
initial run that timed out or erred) runs as before.

What the initial program's run says it reached comes from inside its process, where the suite
runs, so the suite can say anything; but it decides only that a candidate's result is the initial
program's, which a suite can already bring about on the candidate's own run (by reading its
source), so no verdict becomes reachable that was not. The probes (`marks`) go on the first
statement of every function of every changed file, so the initial program's run learns which files
the panel changes and nothing of where; selection is used only at the reveal levels that show a
candidate's findings (`full`, `labels`).
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from prism_lsp.materialize import ProgramTree
from prism_lsp.model.outcome import ProgramResult, TestResult
from prism_lsp.runner._prism_protocol import READ_MARK

# Files larger than this are not read for a bound: the candidate runs.
MAX_FILE_BYTES = 2 << 20
MAX_FILES = 16
MAX_MIDDLE_LINES = 5000  # changed region of one file whose lines are matched by difflib
# Decorators that call the body whenever the function is called (or define it as is).
_TRANSPARENT = {"property", "staticmethod", "classmethod", "abstractmethod", "setter", "getter", "deleter", "overload"}
READ = READ_MARK  # the line a run reports under a marked file it read, or under each when it starts a process


@dataclass(frozen=True)
class Bound:
    """Where a candidate's change lives, in the initial program's files: per changed file, the
    first line of each changed function's first statement (`entries`), and how initial lines map
    onto the candidate's (`lines`, for what a reused result says it covered)."""

    entries: dict[str, frozenset[int]]
    lines: dict[str, dict[int, int]]


def _functions(tree: ast.Module) -> dict[tuple[str, int], ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of `tree` by (qualified name, how many of that name came before)."""
    out: dict[tuple[str, int], ast.FunctionDef | ast.AsyncFunctionDef] = {}
    seen: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                seen[name] = n = seen.get(name, -1) + 1
                out[(name, n)] = child
                walk(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def _docstring(fn: ast.AST) -> list[ast.stmt]:
    body = getattr(fn, "body", [])
    first = body[0] if body else None
    is_doc = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    )
    return [first] if is_doc and first is not None else []


def _body_dump(fn: ast.AST) -> str:
    body = getattr(fn, "body", [])
    return ast.dump(ast.Module(body=body[len(_docstring(fn)) :], type_ignores=[]))


def _transparent(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for deco in fn.decorator_list:
        name = deco.attr if isinstance(deco, ast.Attribute) else deco.id if isinstance(deco, ast.Name) else None
        if name not in _TRANSPARENT:
            return False
    return True


def first_statement(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int | None:
    """The line of the first statement of `fn`'s body that runs whenever the body does (not its
    docstring, not a nested `def` or `class`, which `_prism_lines` does not count), else None."""
    for stmt in fn.body[len(_docstring(fn)) :]:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None  # the body's first executable statement may not run first
        return stmt.lineno
    return None


def _emptied(tree: ast.Module, names: set[tuple[str, int]]) -> str:
    for key, fn in _functions(tree).items():
        if key in names:
            fn.body = [*_docstring(fn), ast.Pass()]
    return ast.dump(tree)


def bounded_file(before: str, after: str) -> frozenset[int] | None:
    """The first-statement lines (in `before`) of the functions whose bodies are all that differ
    between the two versions of a module, or None when more differs (or either does not parse)."""
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError, RecursionError):
        return None
    old_fns, new_fns = _functions(old), _functions(new)
    if old_fns.keys() != new_fns.keys():
        return None
    changed = {key for key, fn in old_fns.items() if _body_dump(fn) != _body_dump(new_fns[key])}
    entries: set[int] = set()
    for key in changed:
        line = first_statement(old_fns[key])
        if line is None or not _transparent(old_fns[key]):
            return None
        entries.add(line)
    try:
        same = _emptied(old, changed) == _emptied(new, changed)
    except RecursionError:
        return None
    return frozenset(entries) if same else None


def _line_map(before: str, after: str) -> dict[int, int] | None:
    """Line n of `before` -> its line in `after`, for the lines a diff leaves alone; None when the
    lines between the common head and tail, which difflib matches (quadratic: a whole 5,000-line
    module took 0.2 s a candidate), are more than MAX_MIDDLE_LINES."""
    old, new = before.splitlines(), after.splitlines()
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if max(len(old), len(new)) - head - tail > MAX_MIDDLE_LINES:
        return None
    out = {n: n for n in range(1, head + 1)}
    matcher = difflib.SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            out[head + a + k + 1] = head + b + k + 1
    out.update({len(old) - k: len(new) - k for k in range(tail)})
    return out


def _text(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def tree_bound(initial: ProgramTree, candidate: ProgramTree) -> Bound | None:
    """`bound` of two built trees, worked out once per pair of digests (trees are content-addressed;
    a 5,000-line module takes a few hundred milliseconds a candidate, every edit)."""
    return _tree_bound(initial.path, initial.digest, candidate.path, candidate.digest, tuple(sorted(candidate.changed)))


@functools.lru_cache(maxsize=256)
def _tree_bound(
    initial: Path, _digest: str, candidate: Path, _cand_digest: str, changed: tuple[str, ...]
) -> Bound | None:
    return bound(initial, candidate, changed)


def bound(initial: Path, candidate: Path, changed: Iterable[str]) -> Bound | None:
    """The candidate's `Bound` (trees `initial` and `candidate`, the files the candidate changed),
    or None when its change is not confined to function bodies of files both trees have."""
    changed = tuple(changed)
    if not changed or len(changed) > MAX_FILES:
        return None
    entries: dict[str, frozenset[int]] = {}
    lines: dict[str, dict[int, int]] = {}
    for rel in changed:
        if not rel.endswith(".py"):
            return None
        before, after = _text(initial / rel), _text(candidate / rel)
        if before is None or after is None:
            return None
        found = bounded_file(before, after)
        moved = _line_map(before, after) if found is not None else None
        if found is None or moved is None:
            return None
        entries[rel] = found
        lines[rel] = moved
    return Bound(entries, lines)


def tree_marks(initial: ProgramTree, files: set[str]) -> dict[str, list[int]]:
    """`marks` of a built tree, once per digest and files."""
    return _tree_marks(initial.path, initial.digest, tuple(sorted(files)))


@functools.lru_cache(maxsize=64)
def _tree_marks(initial: Path, _digest: str, files: tuple[str, ...]) -> dict[str, list[int]]:
    return marks(initial, set(files))


def marks(initial: Path, files: set[str]) -> dict[str, list[int]]:
    """The lines the initial program's run is probed at: the first statement of every function of
    each of `files` (all of them, so the probes do not say which functions the panel changes)."""
    out: dict[str, list[int]] = {}
    for rel in sorted(files):
        text = _text(initial / rel)
        try:
            tree = ast.parse(text) if text is not None else None
        except (SyntaxError, ValueError, RecursionError):
            tree = None
        if tree is not None:
            found = (first_statement(fn) for fn in _functions(tree).values())
            out[rel] = sorted({line for line in found if line is not None})
    return out


def reusable(initial: ProgramResult) -> bool:
    """Whether the initial program's run finished cleanly enough to stand for a candidate's."""
    return initial.outcome in ("pass", "fail") and all(t.outcome in ("pass", "fail", "skip") for t in initial.tests)


def reaches(initial: ProgramResult, found: Bound) -> bool:
    """Whether any test of the initial program's run started a body the candidate changes, read
    one of its changed files or started a process (`READ`)."""
    for t in initial.tests:
        for rel, covered in t.covered:
            wanted = found.entries.get(rel)
            if wanted is not None and (READ in covered or not wanted.isdisjoint(covered)):
                return True
    return False


def reused(initial: ProgramResult, found: Bound) -> ProgramResult:
    """The initial program's result as the candidate's: its tests reach nothing the candidate
    changed; the lines they covered renumbered into the candidate's files."""

    def moved(t: TestResult) -> TestResult:
        covered = tuple(
            (rel, tuple(found.lines[rel][n] for n in lines if n in found.lines[rel]) if rel in found.lines else lines)
            for rel, lines in t.covered
        )
        return replace(t, covered=covered, reached_change=False)

    return replace(initial, tests=tuple(moved(t) for t in initial.tests), reused=True)


def unmarked(initial: ProgramResult) -> ProgramResult:
    """The initial program's result as if it had run without marks: it changed nothing (so no
    test reached a change) and read nothing `READ` stands for."""
    tests = tuple(
        replace(
            t, reached_change=None, covered=tuple((rel, tuple(n for n in ls if n != READ)) for rel, ls in t.covered)
        )
        for t in initial.tests
    )
    return replace(initial, tests=tests)


# (suite file, tests, initial tree digest) -> what the last marked run of them reached, per file:
# decides only whether a bounded candidate waits for the initial program or runs beside it.
_LAST: dict[tuple, dict[str, frozenset[int]]] = {}
_LAST_KEPT = 256


def remember(key: tuple, digest: str, initial: ProgramResult) -> None:
    reached: dict[str, set[int]] = {}
    for t in initial.tests:
        for rel, covered in t.covered:
            reached.setdefault(rel, set()).update(covered)
    _LAST[(key, digest)] = {rel: frozenset(v) for rel, v in reached.items()}
    while len(_LAST) > _LAST_KEPT:
        del _LAST[next(iter(_LAST))]


def reached_before(key: tuple, digest: str, found: Bound) -> bool:
    """Whether the last marked run of these tests reached `found`'s change (then the candidate runs
    beside the initial program instead of waiting for it). Unknown: False."""
    last = _LAST.get((key, digest), {})
    return any(
        READ in last.get(rel, ()) or not entries.isdisjoint(last.get(rel, ())) for rel, entries in found.entries.items()
    )

"""Suite edits as text: new witness tests, relaxed assertions, and applying them.

Pure functions of the suite's text (no runs). An `Edit` replaces a range given as
0-based (line, column) pairs, as LSP does; `apply_edits` applies several, last
first, so earlier ranges stay right.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from prism_lsp.witness.search import Witness


@dataclass(frozen=True)
class Edit:
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    new_text: str
    # Of two insertions at one place, the lower `after` goes first: a check appended to a test
    # (0) must stay in that test when a new test is inserted at the same place (1).
    after: int = 0


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(x) for x in lines[:line]) + col


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with every edit applied (ranges refer to the original text; they must not overlap)."""
    lines = text.splitlines(keepends=True)
    # Last first; of two insertions at one place, the later one first, so they end up in order.
    spans = sorted(
        (
            (_offset(lines, e.start_line, e.start_col), _offset(lines, e.end_line, e.end_col), e.after, i, e.new_text)
            for i, e in enumerate(edits)
        ),
        reverse=True,
    )
    for start, end, _, _, new in spans:
        text = text[:start] + new + text[end:]
    return text


def unified_diff(old: str, new: str, rel_path: str) -> str:
    """A diff `patch -p0` and `git apply -p0` accept (the suite's path in its task, on both sides)."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=rel_path, tofile=rel_path
        )
    )


def imports_pytest(tree: ast.Module) -> bool:
    return any(
        isinstance(n, ast.Import) and any(a.name == "pytest" and not a.asname for a in n.names) for n in tree.body
    )


def test_names(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def fresh_name(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def witness_body(w: Witness, has_pytest: bool) -> list[str]:
    """The statements that check `w` (unindented)."""
    if w.kind == "raises":
        head = [] if has_pytest else ["import pytest", ""]
        return head + [f"with pytest.raises({w.expected}):", f"    {w.assertion_call}"]
    if w.kind == "mutates":
        fn = w.call.split("(", 1)[0]
        if len(w.args) == 1:
            value = w.expected[1:-2]  # "(x,)" -> "x": the one argument's literal
            return [f"value = {value}", f"{fn}(value)", f"assert value == {value}"]
        return [f"arguments = {w.expected}", f"{fn}(*arguments)", f"assert arguments == {w.expected}"]
    return [f"assert {w.assertion_call} == {w.expected}"]


def statement_text(w: Witness) -> str:
    """One line naming what a witness test checks (for titles)."""
    if w.kind == "raises":
        return f"with pytest.raises({w.expected}): {w.assertion_call}"
    if w.kind == "mutates":
        return f"{w.call} leaves its arguments unchanged"
    return f"assert {w.assertion_call} == {w.expected}"


def _end_of(tree: ast.Module, after_test: str | None) -> int | None:
    """0-based line after the top-level test `after_test` (None: not found)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == after_test:
            return node.end_lineno
    return None


def new_test_edit(text: str, tree: ast.Module, name: str, body: list[str], after_test: str | None) -> Edit:
    """Insert `def name():` with `body` after the test `after_test`, or at the end of the file."""
    block = "\n".join(f"    {line}" if line else "" for line in body)
    func = f"def {name}():\n{block}\n"
    lines = text.splitlines(keepends=True)
    line = _end_of(tree, after_test)
    if line is not None and line < len(lines):
        return Edit(line, 0, line, 0, f"\n\n{func}", after=1)
    end = len(lines)
    if text and not text.endswith("\n"):
        return Edit(end - 1, len(lines[-1]), end - 1, len(lines[-1]), f"\n\n\n{func}", after=1)
    return Edit(end, 0, end, 0, ("\n\n" if text.strip() else "") + func, after=1)


def append_to_test_edit(text: str, tree: ast.Module, test: str, body: list[str]) -> Edit | None:
    """Append `body` at the end of the top-level test `test`, at its body's indentation; None when the
    test is decorated (parametrized: the check would run once per case), has no plain body, or
    already uses a name the body binds."""
    func = next(
        (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == test), None
    )
    if func is None or func.decorator_list or not func.body or func.end_lineno is None:
        return None
    used = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    if used & {"value", "arguments", "pytest"} and any(
        b.startswith(("value =", "arguments =", "import pytest")) for b in body
    ):
        return None
    lines = text.splitlines(keepends=True)
    first = lines[func.body[0].lineno - 1]
    indent = first[: func.body[0].col_offset]
    if indent.strip() or func.body[0].lineno == func.lineno:
        return None  # a one-line `def test(): ...`: no block to extend
    block = "".join(f"{indent}{line}\n" if line else "\n" for line in body)
    end = func.end_lineno
    if end < len(lines) or text.endswith("\n"):
        return Edit(end, 0, end, 0, block)
    return Edit(end - 1, len(lines[-1]), end - 1, len(lines[-1]), "\n" + block.rstrip("\n"))


def snake(text: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_") or "case"


@dataclass(frozen=True)
class FailingAssert:
    """An `assert CALL == VALUE` (either side) whose CALL is a literal call of an entry point."""

    start_line: int  # 1-based, inclusive
    end_line: int
    indent: str
    call_source: str
    other_source: str


def failing_assert(text: str, tree: ast.Module, line: int, call_sources: set[str]) -> FailingAssert | None:
    """The single-comparison equality assert covering `line` (1-based), if its one side is a known call."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert) or not (node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        test = node.test
        if (
            node.msg is not None
            or not isinstance(test, ast.Compare)
            or len(test.ops) != 1
            or not isinstance(test.ops[0], ast.Eq)
        ):
            return None
        left = ast.get_source_segment(text, test.left) or ""
        right = ast.get_source_segment(text, test.comparators[0]) or ""
        if left in call_sources:
            call, other = left, right
        elif right in call_sources:
            call, other = right, left
        else:
            return None
        first = text.splitlines()[node.lineno - 1]
        return FailingAssert(
            node.lineno, node.end_lineno or node.lineno, first[: len(first) - len(first.lstrip())], call, other
        )
    return None


def replace_assert_edit(
    text: str,
    tree: ast.Module,
    target: FailingAssert,
    statement: str,
    extra_tests: Sequence[tuple[str, list[str]]] = (),
) -> Edit:
    """Replace the assert with `statement`; with `extra_tests`, also add those tests right after the
    enclosing test, in the same edit (one range: from the assert to the end of that test)."""
    lines = text.splitlines()
    end = target.end_line
    tail = ""
    if extra_tests:
        func = next(
            (
                n
                for n in tree.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.lineno <= target.start_line <= (n.end_lineno or n.lineno)
            ),
            None,
        )
        if func is None:
            raise ValueError("the assert is not inside a top-level test")
        end = func.end_lineno or end
        tail = "\n".join(lines[target.end_line : end])
        tail = ("\n" + tail if tail else "") + "".join(
            "\n\n\ndef " + name + "():\n" + "\n".join(f"    {b}" if b else "" for b in body)
            for name, body in extra_tests
        )
    return Edit(target.start_line - 1, 0, end - 1, len(lines[end - 1]), target.indent + statement + tail)

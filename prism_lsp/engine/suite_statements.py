"""The suite's assertion-rewritten code, rebuilt per top-level statement from one edit to the next.

Parsing a 7,000-line test module into Python's `ast` objects took 0.25-0.35 s of every edit (the
rewrite 0.03 s, the compile 0.1 s): the editor's one-test edit waited for it before any program
ran. :class:`StatementCompiler` keeps, per suite file, the last version's top-level statements
already parsed and rewritten by pytest's rewriter; a new version reparses only the lines between
the unchanged head and tail of the text (widened to whole statements, one statement of context on
each side), moves the tail's line numbers, and compiles the module again from the kept statements.

Why the pieces are the whole: Python's grammar at module level is a sequence of statements, and a
top-level statement's extent (from its first decorator to its last line) is where its tokens are;
lines between statements are blank or comments. A region that starts at a statement (or a changed
line) after a line that does not continue onto it, and that parses alone, means the same inside the
module. The code is pytest's own rewrite of those statements, with pytest's two helper imports put
where pytest puts them; the one number it writes into the code, an assertion's line for pytest's pass
hook, moves with the statement.

Whatever could make a piece mean something else is compiled whole, as before: an encoding
declaration or a byte-order mark, `\\r` line ends, `barry_as_FLUFL`, `PYTEST_DONT_REWRITE`,
a region that does not parse alone, a line ending in a backslash before it. Warnings give no code
(as for a whole compile: the runner's child compiles it under the session's warning filters).
"""

from __future__ import annotations

import ast
import re
import threading
import types
import warnings
from collections import OrderedDict
from dataclasses import dataclass

from prism_lsp.runner import _prism_suitecode as suitecode

_KEEP = 4  # suite files whose last version is kept
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=]")
_HELPERS = ("@py_builtins", "@pytest_ar")  # what pytest's rewriter names its inserted imports


@dataclass
class _Piece:
    """One top-level statement (or several sharing a line), rewritten, with the lines it is at now."""

    start: int
    end: int
    body: list[ast.stmt]
    warned: bool
    # Its nodes that carry lines, and the pass hook's line numbers, each once: found at its first move.
    placed: tuple[list[ast.AST], list[ast.Constant]] | None = None


@dataclass
class _Version:
    lines: list[str]
    pieces: list[_Piece]
    helpers: list[ast.Import]  # pytest's inserted imports, as its rewriter made them


class StatementCompiler:
    """Compiles suite versions as `_prism_suitecode` does, reusing the last version's statements.
    Thread-safe; keeps the last version of `_KEEP` files."""

    def __init__(self) -> None:
        self._last: OrderedDict[str, _Version] = OrderedDict()
        self._lock = threading.Lock()
        self.reparsed_lines = 0  # lines parsed by the last call (tests read it)

    def code(self, text: str, path: str) -> types.CodeType | None:
        """The code pytest would compile for suite `text` at `path` (None: it does not compile
        cleanly here, or it warns: the runner compiles it then)."""
        with self._lock:
            if not _piecewise(text):
                self._last.pop(path, None)
                self.reparsed_lines = text.count("\n") + 1
                return suitecode.rewritten_code(text.encode("utf-8"), path)
            lines = text.split("\n")
            old = self._last.pop(path, None)
            updated = _update(old, lines) if old is not None else None
            version: _Version | None
            if updated is not None:
                version, self.reparsed_lines = updated
            else:
                version, self.reparsed_lines = _build(lines, path), len(lines)
            if version is None:
                return None
            self._last[path] = version
            while len(self._last) > _KEEP:
                self._last.popitem(last=False)
            return _compile(version, path)


def _piecewise(text: str) -> bool:
    head = text.split("\n", 2)[:2]
    return not (
        text.startswith("\ufeff")
        or "\r" in text
        or "barry_as_FLUFL" in text  # the one `__future__` feature that changes how text parses
        or "PYTEST_DONT_REWRITE" in text
        or any(_COOKIE.match(line) for line in head)
    )


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _pieces(source: str, path: str) -> tuple[list[_Piece], list[ast.Import]] | None:
    """`source` parsed and rewritten, cut into top-level pieces (lines relative to `source`)."""
    data = source.encode("utf-8")
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            tree = ast.parse(data, filename=path)
            spans: list[list[int]] = []
            for stmt in tree.body:
                first, last = _first_line(stmt), stmt.end_lineno or stmt.lineno
                if spans and first <= spans[-1][1]:  # `a = 1; b = 2`: one piece
                    spans[-1][1] = max(spans[-1][1], last)
                else:
                    spans.append([first, last])
            if not suitecode.rewrite(tree, data, path):
                return None
    except (SyntaxError, ValueError, RecursionError, MemoryError, KeyError, TypeError):
        return None
    helpers = [s for s in tree.body if isinstance(s, ast.Import) and _is_helper(s)]
    pieces = [_Piece(start, end, [], bool(warned)) for start, end in spans]
    index = 0
    for stmt in tree.body:
        if _is_helper(stmt):
            continue
        while index < len(pieces) and stmt.lineno > pieces[index].end:
            index += 1
        if index == len(pieces) or stmt.lineno < pieces[index].start:
            return None  # a rewritten statement outside every piece: not cut here
        pieces[index].body.append(stmt)
    return pieces, helpers


def _is_helper(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Import) and len(stmt.names) == 1 and stmt.names[0].asname in _HELPERS


def _build(lines: list[str], path: str) -> _Version | None:
    found = _pieces("\n".join(lines), path)
    if found is None:
        return None
    pieces, helpers = found
    return _Version(lines, pieces, helpers) if len(helpers) == len(_HELPERS) or not pieces else None


def _update(old: _Version, lines: list[str]) -> tuple[_Version, int] | None:
    """`old` brought to `lines` by reparsing what changed; None when that cannot be done safely."""
    before, n = old.lines, len(lines)
    head = 0
    limit = min(len(before), n)
    while head < limit and before[head] == lines[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == lines[-1 - tail]:
        tail += 1
    delta = n - len(before)
    changed_lo, changed_hi = head + 1, len(before) - tail  # old lines changed (none when lo > hi)
    pieces = old.pieces
    first = next((i for i, p in enumerate(pieces) if p.end >= changed_lo), len(pieces))
    last = max((i for i, p in enumerate(pieces) if p.start <= changed_hi), default=-1)
    lo, hi = max(min(first, last) - 1, 0), min(max(first, last) + 1, len(pieces) - 1)
    start = min(pieces[lo].start, changed_lo) if pieces else changed_lo
    end = max(pieces[hi].end, changed_hi) if pieces else changed_hi
    new_start, new_end = start, end + delta
    if new_start > 1 and lines[new_start - 2].rstrip().endswith("\\"):
        return None
    middle: list[_Piece] = []
    helpers = old.helpers
    if new_start <= new_end:
        found = _pieces("\n".join(lines[new_start - 1 : new_end]) + "\n", "<piece>")
        if found is None:
            return None
        middle, _ = found
        for piece in middle:
            _move(piece, new_start - 1)
    kept_head = [p for p in pieces[:lo] if p.end < start]
    kept_tail = [p for p in pieces[hi + 1 :] if p.start > end]
    if len(kept_head) != lo or len(kept_tail) != len(pieces) - hi - 1:
        return None
    if delta:
        for piece in kept_tail:
            _move(piece, delta)
    return _Version(lines, kept_head + middle + kept_tail, helpers), max(new_end - new_start + 1, 0)


def _move(piece: _Piece, delta: int) -> None:
    """Move `piece`'s lines by `delta` (its nodes found once: a piece below an added line moves on
    every edit above it)."""
    if not delta:
        return
    if piece.placed is None:
        piece.placed = _placed(piece.body)
    nodes, passes = piece.placed
    for node in nodes:
        node.lineno += delta  # type: ignore[attr-defined]
        if getattr(node, "end_lineno", None) is not None:
            node.end_lineno += delta  # type: ignore[attr-defined]
    for constant in passes:
        if isinstance(constant.value, int):  # always: `_passed_at` takes only those
            constant.value += delta
    piece.start += delta
    piece.end += delta


def _placed(body: list[ast.stmt]) -> tuple[list[ast.AST], list[ast.Constant]]:
    """Each node of `body` that has a line, and each pass-hook line number, once. Not the walk of
    `ast.increment_lineno`: pytest's rewrite puts one node in several places of its output, and a
    walk that meets it twice would move it twice."""
    seen: set[int] = set()
    nodes: list[ast.AST] = []
    passes: list[ast.Constant] = []
    counted: set[int] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node, "lineno", None) is not None:
            nodes.append(node)
        passed = _passed_at(node)
        if passed is not None and id(passed) not in counted:
            counted.add(id(passed))
            passes.append(passed)
        stack.extend(ast.iter_child_nodes(node))
    return nodes, passes


def _passed_at(node: ast.AST) -> ast.Constant | None:
    """The assertion's line the rewrite passes to pytest's pass hook (`@pytest_ar._call_assertion_pass
    (line, ...)`), a number in the code, not a position: it moves with the statement. `@pytest_ar`
    is no identifier, so no suite's own call looks like it."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "_call_assertion_pass"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "@pytest_ar"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, int)
    ):
        return node.args[0]
    return None


def _helpers_at(body: list[ast.stmt]) -> int:
    """Where pytest's rewriter inserts its imports: after a leading docstring and `__future__` imports."""
    pos = 0
    for index, item in enumerate(body):
        docstring = (
            isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str)
        )
        future = isinstance(item, ast.ImportFrom) and item.level == 0 and item.module == "__future__"
        if not ((docstring and index == 0) or future):
            break
        pos += 1
    return pos


def _compile(version: _Version, path: str) -> types.CodeType | None:
    if any(p.warned for p in version.pieces):
        return None
    body = [stmt for piece in version.pieces for stmt in piece.body]
    if body:  # pytest's helper imports where its rewriter puts them: after the docstring and futures
        pos = _helpers_at(body)
        item = body[min(pos, len(body) - 1)]
        decorators = item.decorator_list if isinstance(item, ast.FunctionDef) else []
        line = decorators[0].lineno if decorators else item.lineno
        helpers = [
            ast.Import(
                [ast.alias(a.name, a.asname, lineno=line, col_offset=0) for a in h.names], lineno=line, col_offset=0
            )
            for h in version.helpers
        ]
        body = body[:pos] + helpers + body[pos:]
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            code = compile(ast.Module(body=body, type_ignores=[]), path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, TypeError):
        return None
    return None if warned else code

"""Which lines of a module count as executable, for the runner's probes and the host's coverage.

One rule, shared by both sides (stdlib only: the runner imports it by file inside the sandbox,
the host as `prism_lsp.runner._prism_lines`): a line is *executable* when a statement starts on
it, as coverage.py counts lines — but only inside functions, and never a `def`, a `class` or a
docstring: those run at import, not when a test exercises the code. A changed line belongs to the statement whose span
holds it (a compound statement's span is its header); the statement's first line is what counts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_BODIES = ("body", "orelse", "finalbody", "handlers")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFS = (*_FUNCS, ast.ClassDef)


def _is_docstring(stmt: ast.stmt, index: int, parent: ast.AST) -> bool:
    return (
        index == 0
        and isinstance(parent, (ast.Module, *_DEFS))
        and isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def statements(tree: ast.AST) -> Iterator[tuple[ast.AST, str, int, ast.stmt]]:
    """Every executable statement under `tree`: (parent, its body field, index there, statement).

    Only statements inside a function count: module and class bodies run at import, whichever
    test or none imports them, so reaching them says nothing of what the suite exercises."""
    stack = [(tree, isinstance(tree, _FUNCS))]
    while stack:
        node, inside = stack.pop()
        if inside:
            for name in _BODIES:
                stmts = getattr(node, name, None)
                if not isinstance(stmts, list):
                    continue
                for index, stmt in enumerate(stmts):
                    if (
                        isinstance(stmt, ast.stmt)
                        and not isinstance(stmt, _DEFS)
                        and not _is_docstring(stmt, index, node)
                    ):
                        yield node, name, index, stmt
        for child in ast.iter_child_nodes(node):
            stack.append((child, inside or isinstance(child, _FUNCS)))


def header_end(stmt: ast.stmt) -> int:
    """The last line of `stmt`'s own span: its header for a compound statement, else its end."""
    end = stmt.end_lineno or stmt.lineno
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.AST) and hasattr(body[0], "lineno"):
        end = max(stmt.lineno, body[0].lineno - 1)
    return end


def function_node(tree: ast.Module, qualname: str) -> ast.AST | None:
    """The function `qualname` (`f` or `Class.method`) at the top of `tree`, else None."""
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next((n for n in scope if isinstance(n, _DEFS) and n.name == part), None)
        if node is None:
            return None
        scope = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def measured_lines(tree: ast.Module, changed: set[int], functions: list[str]) -> tuple[set[int], set[int]]:
    """(first lines of the executable statements holding a `changed` line, first lines of the
    executable statements inside the `functions` named: entry points' spans)."""
    changed_lines: set[int] = set()
    if changed:
        for _parent, _name, _index, stmt in statements(tree):
            if any(stmt.lineno <= line <= header_end(stmt) for line in changed):
                changed_lines.add(stmt.lineno)
    entry_lines: set[int] = set()
    for qualname in functions:
        node = function_node(tree, qualname)
        if node is not None:
            entry_lines.update(stmt.lineno for _p, _n, _i, stmt in statements(node))
    return changed_lines, entry_lines


def source_lines(source: str | bytes, changed: set[int], functions: list[str]) -> tuple[set[int], set[int]]:
    """`measured_lines` of a module's source; nothing for a file that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set(), set()
    return measured_lines(tree, changed, functions)

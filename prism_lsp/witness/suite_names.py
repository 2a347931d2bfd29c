"""What a suite imports and calls, as entry-point inference reads it (`entry.entry_points`).

Worked out per top-level statement and remembered by the statement's text: an edit of one test of
a 6,000-line module parses that test again, not the module (the whole module's `ast` walk took
0.3 s of every keystroke's run). A buffer tree-sitter finds broken, or one CPython does not compile, is
read whole, as before.
"""

from __future__ import annotations

import ast
import hashlib
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

MAX_ALIASES = 10_000
MAX_REMEMBERED = 8_192  # statements whose facts are kept (a few modules' worth)

# ("from", module, name, asname) for `from module import name as asname`; ("import", module, "", asname)
# for `import module as asname` (asname "" when there is none)
Import = tuple[str, str, str, str]


@dataclass(frozen=True)
class SuiteNames:
    """The suite's top-level imports in order, every dotted name it calls (or passes to a call), and
    its aliases (`name = m.f` anywhere: name -> the dotted name; a name bound to two things is left out)."""

    imports: tuple[Import, ...]
    called: frozenset[str]
    aliases: dict[str, str]


@dataclass(frozen=True)
class _Facts:
    imports: tuple[Import, ...]
    called: frozenset[str]
    bindings: tuple[tuple[str, str], ...]  # (name, dotted) in `ast.walk` order


_remembered: OrderedDict[bytes, _Facts] = OrderedDict()
_lock = threading.Lock()


def suite_names(text: str) -> SuiteNames | None:
    """The suite's imports, calls and aliases; None when `text` does not parse."""
    facts = _per_statement(text)
    if facts is None:
        tree = _parse(text)
        if tree is None:
            return None
        facts = [_facts_of(tree)]
    return _merge(facts)


def dotted_name(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _parse(text: str | bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: the suite's run reports them
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _per_statement(text: str) -> list[_Facts] | None:
    from prism_lsp.analysis.discovery import discover
    from prism_lsp.analysis.source import top_level
    from prism_lsp.analysis.suite_map import parse_suite

    # Both cached: the editor's analysis of this text has made them already. A buffer CPython does not
    # compile is read whole (tree-sitter takes some indentation errors `ast` refuses).
    if parse_suite(text).syntax_errors or parse_suite(text).problem is not None:
        return None
    found = discover(text)
    if not found.clean:
        return None
    data = found.source.data
    out = []
    for node, chunk in top_level(found.chunks):
        if node.type == "comment":
            continue
        start, end = found.source.byte_range(node, chunk)
        piece = data[start:end]
        key = hashlib.blake2b(piece, digest_size=16).digest()
        with _lock:
            facts = _remembered.get(key)
            if facts is not None:
                _remembered.move_to_end(key)
        if facts is None:
            tree = _parse(piece)
            if tree is None:
                return None
            facts = _facts_of(tree)
            with _lock:
                _remembered[key] = facts
                while len(_remembered) > MAX_REMEMBERED:
                    _remembered.popitem(last=False)
        out.append(facts)
    return out


def _facts_of(tree: ast.Module) -> _Facts:
    imports: list[Import] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            imports += [("from", stmt.module, a.name, a.asname or "") for a in stmt.names]
        elif isinstance(stmt, ast.Import):
            imports += [("import", a.name, "", a.asname or "") for a in stmt.names]
    called = set()
    bindings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            # `f(...)`, `m.f(...)`, and a function passed to a call (`check(f)`, HumanEval's way).
            for part in [node.func, *node.args]:
                dotted = dotted_name(part) if part is node.func or isinstance(part, (ast.Name, ast.Attribute)) else None
                if dotted:
                    called.add(dotted)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Name, ast.Attribute))
        ):
            dotted = dotted_name(node.value)
            if dotted is not None and dotted != node.targets[0].id:
                bindings.append((node.targets[0].id, dotted))
    return _Facts(tuple(imports), frozenset(called), tuple(bindings))


def _merge(facts: list[_Facts]) -> SuiteNames:
    aliases: dict[str, str] = {}
    clashes: set[str] = set()
    for fact in facts:
        for name, dotted in fact.bindings:
            if len(aliases) >= MAX_ALIASES:
                break
            if aliases.setdefault(name, dotted) != dotted:
                clashes.add(name)
    return SuiteNames(
        imports=tuple(i for fact in facts for i in fact.imports),
        called=frozenset().union(*(fact.called for fact in facts)),
        aliases={k: v for k, v in aliases.items() if k not in clashes},
    )

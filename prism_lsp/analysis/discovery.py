"""Walk the parsed buffer and find pytest tests, their asserts, and everything else.

This is the tree-level half of :mod:`prism_lsp.analysis.suite_map`; it keeps the tree-sitter
nodes so the static rules can look inside assertions. Collection follows pytest's defaults:
functions whose name starts with ``test`` at module level or inside a ``Test*`` class
(nested classes too, no ``__init__``), ``async def`` and decorated ones included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from tree_sitter import Node

from prism_lsp.analysis.limits import nesting_problem, size_problem
from prism_lsp.analysis.regions import parse_chunks
from prism_lsp.analysis.source import Chunk, Source

TEST_FUNCTION_PREFIX = "test"
TEST_CLASS_PREFIX = "Test"


@dataclass(frozen=True)
class RawAssert:
    """An ``assert`` statement (or a broken one inside an ERROR node) with its node."""

    node: Node
    chunk: Chunk
    broken: bool


@dataclass(frozen=True)
class RawTest:
    """A collected test: ``outer`` includes decorators, ``func`` is the function_definition."""

    name: str
    func_name: str
    class_name: str | None
    outer: Node
    func: Node
    chunk: Chunk
    asserts: tuple[RawAssert, ...]


@dataclass
class Discovered:
    """Everything :func:`discover` found in one buffer."""

    source: Source
    chunks: list[Chunk]
    tests: list[RawTest] = field(default_factory=list)
    # Asserts outside any test: helpers, fixtures, module level.
    other_asserts: list[RawAssert] = field(default_factory=list)
    # Names of module-level functions that assert something: calling one is a check.
    asserting_helpers: set[str] = field(default_factory=set)
    # Why the document was not collected (too large, nested too deeply); None when it was.
    problem: str | None = None


@lru_cache(maxsize=8)
def discover(text: str) -> Discovered:
    """Parse ``text`` and collect its tests; cached, since every keystroke asks several times.

    A document past :mod:`prism_lsp.analysis.limits` is not collected: `problem` says why."""
    problem = size_problem(text)
    if problem is not None:
        return Discovered(Source(""), [], problem=problem)
    source = Source(text)
    chunks = parse_chunks(source)
    problem = nesting_problem(chunks)
    if problem is not None:
        return Discovered(source, [], problem=problem)
    found = Discovered(source, chunks)
    for chunk in chunks:
        _walk_level(chunk.root, chunk, None, found)
    return found


def definition_of(node: Node) -> Node | None:
    """The function/class definition a (possibly decorated) statement defines, else None."""
    if node.type == "decorated_definition":
        node = node.child_by_field_name("definition") or node
    if node.type in ("function_definition", "class_definition"):
        return node
    return None


def name_of(definition: Node) -> str:
    name = definition.child_by_field_name("name")
    return name.text.decode("utf-8", errors="replace") if name is not None and name.text else ""


def _walk_level(container: Node, chunk: Chunk, class_path: str | None, found: Discovered) -> None:
    """Walk the statements of a module (class_path None) or of a test class body."""
    for stmt in container.children:
        if stmt.type == "ERROR":
            # Broken code at this level may still hold whole definitions: look inside.
            _walk_level(stmt, chunk, class_path, found)
            continue
        definition = definition_of(stmt)
        name = name_of(definition) if definition is not None else ""
        if (
            definition is not None
            and definition.type == "function_definition"
            and name.startswith(TEST_FUNCTION_PREFIX)
        ):
            found.tests.append(
                RawTest(
                    name=f"{class_path}::{name}" if class_path else name,
                    func_name=name,
                    class_name=class_path,
                    outer=stmt,
                    func=definition,
                    chunk=chunk,
                    asserts=tuple(find_asserts(definition, chunk)),
                )
            )
            continue
        if definition is not None and definition.type == "class_definition" and _is_test_class(definition, name):
            body = definition.child_by_field_name("body")
            if body is not None:
                _walk_level(body, chunk, f"{class_path}::{name}" if class_path else name, found)
            continue
        asserts = find_asserts(stmt, chunk)
        found.other_asserts.extend(asserts)
        if asserts and definition is not None and definition.type == "function_definition" and class_path is None:
            found.asserting_helpers.add(name)


def _is_test_class(definition: Node, name: str) -> bool:
    if not name.startswith(TEST_CLASS_PREFIX):
        return False
    body = definition.child_by_field_name("body")
    # pytest refuses to collect a class with an __init__ (it warns instead).
    for stmt in body.children if body is not None else ():
        inner = definition_of(stmt)
        if inner is not None and inner.type == "function_definition" and name_of(inner) == "__init__":
            return False
    return True


def find_asserts(node: Node, chunk: Chunk) -> list[RawAssert]:
    """Every assert statement under ``node`` in source order, broken ones included."""
    out: list[RawAssert] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "assert_statement":
            out.append(RawAssert(current, chunk, current.has_error))
            continue
        if current.type == "ERROR" and current.child_count and current.children[0].type == "assert":
            # `assert f(x == 1` with the paren unclosed: still the author's assertion.
            out.append(RawAssert(current, chunk, True))
            continue
        stack.extend(reversed(current.children))
    return out

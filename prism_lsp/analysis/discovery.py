"""Walk the parsed buffer and find pytest tests, their asserts, and everything else.

This is the tree-level half of :mod:`prism_lsp.analysis.suite_map`; it keeps the tree-sitter
nodes so the static rules can look inside assertions. Collection follows pytest's defaults:
functions whose name starts with ``test`` at module level or inside a ``Test*`` class
(nested classes too, no ``__init__``), ``async def`` and decorated ones included; and, as pytest's
unittest plugin does whatever their name, the ``test*`` methods of ``unittest.TestCase`` subclasses
(a base named ``*TestCase``, or a class of this module that is one). A test inherited from a class
of another module is not seen here: its results then name a test the map does not know, and the
incremental scheduler keeps none of that suite's results (every run reruns it whole, as is safe).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import lru_cache

from tree_sitter import Node

from prism_lsp.analysis.limits import nesting_problem, size_problem
from prism_lsp.analysis.regions import parse_chunks
from prism_lsp.analysis.source import Chunk, Source

TEST_FUNCTION_PREFIX = "test"
TEST_CLASS_PREFIX = "Test"
# `unittest.TestCase`, `IsolatedAsyncioTestCase`, Django's `SimpleTestCase`...: collected by any name.
CASE_BASE_SUFFIX = "TestCase"
MAX_INHERITED = 10_000  # inherited tests a buffer may add (see `_inherit`)


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
    # True when tree-sitter parsed the buffer without error (`chunks` are then its runs of whole
    # top-level statements: `regions.parse_chunks`); False for the broken buffer's regions.
    clean: bool = False
    tests: list[RawTest] = field(default_factory=list)
    # Asserts outside any test: helpers, fixtures, module level.
    other_asserts: list[RawAssert] = field(default_factory=list)
    # Names of module-level functions that assert something: calling one is a check.
    asserting_helpers: set[str] = field(default_factory=set)
    # Why the document was not collected (too large, nested too deeply); None when it was.
    problem: str | None = None
    # Classes of this module known to be `unittest.TestCase` subclasses (their subclasses are too).
    case_classes: set[str] = field(default_factory=set)
    # Module-level classes pytest collects (`Test*` ones and the `TestCase` subclasses).
    test_classes: set[str] = field(default_factory=set)
    # Tests a module-level test class inherits from classes of this module (pytest collects them
    # under the subclass: `PeekableTests::test_x` of a mixin's method); kept apart from `tests`,
    # whose nodes each belong to one test, so the static rules see a method once.
    inherited: list[RawTest] = field(default_factory=list)
    # Module-level class -> (its bases' names, its `test*` methods by name), collected or not.
    classes: dict[str, tuple[tuple[str, ...], dict[str, tuple[Node, Node, Chunk]]]] = field(default_factory=dict)
    # Chunk (by its first row) -> its assert-like nodes as (start byte, end byte, assert), outer first.
    _assert_like: dict[int, list[tuple[int, int, RawAssert]]] = field(default_factory=dict, repr=False)

    def asserts_in(self, node: Node, chunk: Chunk) -> list[RawAssert]:
        """Every assert statement under ``node`` (a node of ``chunk``) in source order, broken ones
        included: an ``assert_statement``, or an ERROR node that starts with ``assert`` (``assert f(x == 1``
        with the paren unclosed: still the author's assertion). One inside another counts once, as the outer."""
        candidates = self._assert_like.get(chunk.first_row)
        if candidates is None:
            candidates = self._assert_like[chunk.first_row] = _assert_like(chunk)
        out: list[RawAssert] = []
        kept_end = -1
        for i in range(bisect.bisect_left(candidates, (node.start_byte,)), len(candidates)):
            start, end, raw = candidates[i]
            if start >= node.end_byte:
                break
            if end > node.end_byte or start < kept_end:
                continue
            if (start, end) == (node.start_byte, node.end_byte) and not _holds(node, raw.node):
                continue  # `node`'s parent of the same extent (an ERROR around one `assert` token)
            out.append(raw)
            kept_end = end
        return out


@lru_cache(maxsize=8)
def discover(text: str) -> Discovered:
    """Parse ``text`` and collect its tests; cached, since every keystroke asks several times.

    A document past :mod:`prism_lsp.analysis.limits` is not collected: `problem` says why."""
    problem = size_problem(text)
    if problem is not None:
        return Discovered(Source(""), [], problem=problem)
    source = Source(text)
    chunks, clean = parse_chunks(source)
    problem = nesting_problem(chunks)
    if problem is not None:
        return Discovered(source, [], problem=problem)
    found = Discovered(source, chunks, clean=clean)
    for chunk in chunks:
        _walk_level(chunk.root, chunk, None, found)
    _inherit(found)
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


def _walk_level(
    container: Node, chunk: Chunk, class_path: str | None, found: Discovered, *, case: bool = False
) -> None:
    """Walk the statements of a module (class_path None) or of a test class body (`case`: a
    `TestCase`'s, whose nested classes pytest does not collect)."""
    for stmt in container.children:
        if stmt.type == "ERROR":
            # Broken code at this level may still hold whole definitions: look inside.
            _walk_level(stmt, chunk, class_path, found, case=case)
            continue
        definition = definition_of(stmt)
        name = name_of(definition) if definition is not None else ""
        if definition is not None and definition.type == "class_definition" and class_path is None:
            found.classes[name] = (_base_names(definition), _test_methods(definition, chunk))
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
                    asserts=tuple(found.asserts_in(definition, chunk)),
                )
            )
            continue
        if (
            definition is not None
            and definition.type == "class_definition"
            and class_path is None
            and _is_case_class(definition, found.case_classes)
        ):
            found.case_classes.add(name)
            found.test_classes.add(name)
            body = definition.child_by_field_name("body")
            if body is not None:
                _walk_level(body, chunk, name, found, case=True)
            continue
        if (
            definition is not None
            and definition.type == "class_definition"
            and not case
            and _is_test_class(definition, name)
        ):
            if class_path is None:
                found.test_classes.add(name)
            body = definition.child_by_field_name("body")
            if body is not None:
                _walk_level(body, chunk, f"{class_path}::{name}" if class_path else name, found)
            continue
        asserts = found.asserts_in(stmt, chunk)
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


def _base_names(definition: Node) -> tuple[str, ...]:
    """The last name of each base a class statement lists (`unittest.TestCase` -> `TestCase`)."""
    bases = definition.child_by_field_name("superclasses")
    names = []
    for base in bases.named_children if bases is not None else ():
        if base.type == "attribute":
            base = base.child_by_field_name("attribute") or base
        if base.type == "identifier" and base.text is not None:
            names.append(base.text.decode("utf-8", errors="replace"))
    return tuple(names)  # `metaclass=...`, a call, a subscript: not a class we can name


def _test_methods(definition: Node, chunk: Chunk) -> dict[str, tuple[Node, Node, Chunk]]:
    """A class body's `test*` methods: name -> (statement, function definition, its chunk)."""
    body = definition.child_by_field_name("body")
    methods = {}
    for stmt in body.children if body is not None else ():
        inner = definition_of(stmt)
        if inner is not None and inner.type == "function_definition":
            name = name_of(inner)
            if name.startswith(TEST_FUNCTION_PREFIX):
                methods[name] = (stmt, inner, chunk)
    return methods


def _inherited_methods(
    name: str, found: Discovered, memo: dict[str, dict[str, tuple[Node, Node, Chunk]]], depth: int = 0
) -> dict[str, tuple[Node, Node, Chunk]]:
    """Every `test*` method class `name` has from this module's classes, its own first, then its bases'
    in order (a simple MRO: enough for mixins). Each class is worked out once (`memo`: a diamond of
    bases is not walked again per path), at most `MAX_INHERITED` methods, 20 bases deep."""
    if name in memo:
        return memo[name]
    if name not in found.classes or depth > 20:
        return {}
    bases, own = found.classes[name]
    methods = dict(own)
    for base in bases:
        for method, nodes in _inherited_methods(base, found, memo, depth + 1).items():
            if len(methods) >= MAX_INHERITED:
                break
            methods.setdefault(method, nodes)
    memo[name] = methods
    return methods


def _inherit(found: Discovered) -> None:
    """Add the tests each collected module-level class inherits from classes of this module, at most
    `MAX_INHERITED` in all (the editor's buffer is untrusted: a class of many test methods and many
    subclasses would otherwise make a test per pair). Past it, a run's results name tests the map does
    not know, and the incremental scheduler keeps none of that suite's results (a whole rerun, safe)."""
    own = {(t.class_name, t.func_name) for t in found.tests}
    memo: dict[str, dict[str, tuple[Node, Node, Chunk]]] = {}
    asserts: dict[int, tuple[RawAssert, ...]] = {}  # a mixin's method, once for all its classes
    for cls in found.classes:
        if cls not in found.test_classes:
            continue
        for method, (stmt, func, chunk) in _inherited_methods(cls, found, memo).items():
            if (cls, method) in own:
                continue
            if len(found.inherited) >= MAX_INHERITED:
                return
            if func.id not in asserts:
                asserts[func.id] = tuple(found.asserts_in(func, chunk))
            found.inherited.append(RawTest(f"{cls}::{method}", method, cls, stmt, func, chunk, asserts[func.id]))


def _is_case_class(definition: Node, known: set[str]) -> bool:
    """Whether a module-level class derives from `unittest.TestCase`, as far as this module shows:
    a base whose last name ends in `TestCase`, or a class of this module already known to."""
    return any(base.endswith(CASE_BASE_SUFFIX) or base in known for base in _base_names(definition))


def _assert_like(chunk: Chunk) -> list[tuple[int, int, RawAssert]]:
    marked = chunk.marked
    nodes = [(n, n.has_error) for n in marked["assert_statement"]]
    nodes += [(n, True) for n in marked["ERROR"] if n.child_count and n.children[0].type == "assert"]
    return sorted(((n.start_byte, n.end_byte, RawAssert(n, chunk, b)) for n, b in nodes), key=lambda c: (c[0], -c[1]))


def _holds(node: Node, inner: Node) -> bool:
    """Whether `inner` is `node` or lies under it (not beside or above it with the same extent)."""
    current: Node | None = inner
    while current is not None and current.start_byte >= node.start_byte and current.end_byte <= node.end_byte:
        if current == node:
            return True
        current = current.parent
    return False

"""The map of a suite (the editor buffer): its tests, their assertions, syntax errors, hashes.

Built with tree-sitter, so it works on broken code: a syntax error hides at most the
top-level definition it is in. Lines are 1-based, columns are characters (see
:mod:`prism_lsp.analysis.span`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from prism_lsp.analysis.discovery import RawAssert, discover
from prism_lsp.analysis.hashing import shared_code_hash, text_hash
from prism_lsp.analysis.source import Source
from prism_lsp.analysis.span import Span
from prism_lsp.analysis.syntax import SyntaxIssue, find_syntax_issues

__all__ = [
    "AssertionInfo",
    "Span",
    "SuiteMap",
    "SyntaxIssue",
    "TestInfo",
    "assertion_at_line",
    "parse_suite",
    "test_at_line",
    "test_for_name",
]


@dataclass(frozen=True)
class AssertionInfo:
    """One ``assert`` statement: its whole span (all lines), its source text, and the
    pytest name of the test it is in (None for helpers, fixtures and module level)."""

    span: Span
    text: str
    test_name: str | None


@dataclass(frozen=True)
class TestInfo:
    """One pytest test.

    ``name`` is the node name relative to the file (``test_x`` or ``TestFoo::test_x``);
    ``class_name`` is the class part of it (``TestFoo``, or ``TestOuter::TestInner``), None
    for module-level tests. ``span`` covers the whole definition including decorators;
    ``name_span`` is the function's identifier. ``body_hash`` changes exactly when this
    test's own text (decorators included) changes.
    """

    __test__ = False  # not a pytest test class, despite the name

    name: str
    func_name: str
    class_name: str | None
    span: Span
    name_span: Span
    body_hash: str
    assertions: list[AssertionInfo] = field(default_factory=list)


_LINE_MAP_BUDGET = 400_000  # lines mapped at most (a buffer is capped far below: analysis/limits.py)


@dataclass(frozen=True)
class SuiteMap:
    """Everything Prism knows statically about a suite.

    ``tests`` are in source order. A name defined twice appears twice (pytest keeps the last
    one, and so does :func:`test_for_name`). ``helper_assertions`` are asserts outside any
    test. ``syntax_errors`` is empty exactly when CPython compiles the buffer.
    """

    text: str
    tests: list[TestInfo]
    helper_assertions: list[AssertionInfo]
    syntax_errors: list[SyntaxIssue]
    shared_hash: str
    # Why the document is not analysed at all (too large, nested too deeply): nothing runs it.
    problem: str | None = None

    @cached_property
    def by_name(self) -> dict[str, TestInfo]:
        """Test name -> its test (the last one of a name defined twice, as pytest keeps): built once
        per map, so looking up every result of a 589-test module is not quadratic."""
        return {test.name: test for test in self.tests}

    @cached_property
    def by_name_and_text(self) -> dict[tuple[str, str], TestInfo]:
        """(name, body hash) -> the first test with both: how :func:`same_test` finds a test once."""
        found: dict[tuple[str, str], TestInfo] = {}
        for test in self.tests:
            found.setdefault((test.name, test.body_hash), test)
        return found

    @cached_property
    def by_line(self) -> dict[int, TestInfo] | None:
        """Line -> the first test (in source order) whose span holds it; None when the spans overlap
        so much that the map would outgrow the buffer (then :func:`test_at_line` scans)."""
        found: dict[int, TestInfo] = {}
        seen: set[tuple[int, int]] = set()
        budget = _LINE_MAP_BUDGET
        for test in self.tests:
            lines = (test.span.start_line, test.span.end_line)
            if lines in seen:  # an inherited test shares its method's span: the first one holds it
                continue
            seen.add(lines)
            budget -= lines[1] - lines[0] + 1
            if budget < 0:
                return None
            for line in range(lines[0], lines[1] + 1):
                found.setdefault(line, test)
        return found

    def test_hashes(self) -> dict[str, str]:
        """Test name -> hash of that test's own text (the shared hash is not mixed in)."""
        return {test.name: test.body_hash for test in self.tests}

    def all_assertions(self) -> list[AssertionInfo]:
        """Every assertion in the buffer (tests and helpers), in source order."""
        found = [a for test in self.tests for a in test.assertions] + list(self.helper_assertions)
        return sorted(found, key=lambda a: a.span)


@lru_cache(maxsize=8)
def parse_suite(text: str) -> SuiteMap:
    """Map ``text`` (a pytest file, possibly broken). Never raises on bad Python. Cached: a check asks
    for one buffer's map from the analysis, the judge and the redaction (0.4 s each on a 6,000-line
    module); callers treat the map as read-only (`replace` makes a changed copy)."""
    discovered = discover(text)
    if discovered.problem is not None:
        return SuiteMap(
            text=text,
            tests=[],
            helper_assertions=[],
            syntax_errors=[],
            shared_hash=text_hash(text),
            problem=discovered.problem,
        )
    source = discovered.source
    tests: list[TestInfo] = []
    owned: list[tuple[int, int]] = []
    for raw in [*discovered.tests, *discovered.inherited]:
        name_node = raw.func.child_by_field_name("name")
        outer_span = source.span(raw.outer, raw.chunk)
        tests.append(
            TestInfo(
                name=raw.name,
                func_name=raw.func_name,
                class_name=raw.class_name,
                span=outer_span,
                name_span=source.span(name_node, raw.chunk) if name_node is not None else outer_span,
                body_hash=text_hash(source.node_text(raw.outer, raw.chunk)),
                assertions=[_assertion(source, a, raw.name) for a in raw.asserts],
            )
        )
        owned.append(source.byte_range(raw.outer, raw.chunk))
    # Source order, an inherited test at its method's place (after the class's own test there).
    order = sorted(range(len(tests)), key=lambda i: tests[i].span.start_line)
    tests, owned = [tests[i] for i in order], [owned[i] for i in order]
    # Comments change no test's behaviour: editing one outside the tests must not rerun them all.
    owned += [source.byte_range(node, chunk) for chunk in discovered.chunks for node in chunk.marked["comment"]]
    return SuiteMap(
        text=text,
        tests=tests,
        helper_assertions=[_assertion(source, a, None) for a in discovered.other_asserts],
        syntax_errors=find_syntax_issues(source, discovered.chunks, clean=discovered.clean),
        shared_hash=shared_code_hash(source.data, owned),
    )


def _assertion(source: Source, raw: RawAssert, test_name: str | None) -> AssertionInfo:
    return AssertionInfo(source.span(raw.node, raw.chunk), source.node_text(raw.node, raw.chunk), test_name)


# `tests/test_a.py::TestFoo::test_x[1-2]` -> `TestFoo::test_x`
_FILE_PART = re.compile(r"^.*?\.py::")


def test_for_name(suite_map: SuiteMap, pytest_name: str) -> TestInfo | None:
    """The test a pytest node name refers to, or None.

    Accepts ``test_x``, ``TestFoo::test_x``, parametrized ids (``test_x[1-2]``, the
    ``[...]`` is ignored) and full node ids with a leading ``path.py::``.
    """
    name = pytest_name.split("[", 1)[0]
    if ".py::" in name:
        name = _FILE_PART.sub("", name)
    return suite_map.by_name.get(name)


test_for_name.__test__ = False  # type: ignore[attr-defined]


def test_at_line(suite_map: SuiteMap, line: int) -> TestInfo | None:
    """The test whose definition (decorators included) contains 1-based ``line``, or None."""
    by_line = suite_map.by_line
    if by_line is not None:
        return by_line.get(line)
    for test in suite_map.tests:
        if test.span.contains_line(line):
            return test
    return None


test_at_line.__test__ = False  # type: ignore[attr-defined]


def assertion_at_line(suite_map: SuiteMap, line: int) -> AssertionInfo | None:
    """The assertion that touches 1-based ``line`` (any line of a multi-line assert), or None."""
    for assertion in suite_map.all_assertions():
        if assertion.span.contains_line(line):
            return assertion
    return None


def same_test(suite_map: SuiteMap, test: TestInfo) -> TestInfo | None:
    """The test of `suite_map` with `test`'s name and unchanged text (its body hash), or None.

    How results found for one version of a buffer are kept for a newer one: a test whose
    text did not change keeps them, wherever it moved."""
    return suite_map.by_name_and_text.get((test.name, test.body_hash))

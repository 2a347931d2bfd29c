"""Static ``weak-assertion`` findings: tests whose checks let wrong implementations through.

A rule fires for a test when *every* check in it is of that weak kind (one strong check is
enough to silence it). Checks are ``assert`` statements plus the other ways a test can
fail on purpose: ``pytest.raises``/``fail``/``warns``, ``raise``, mock ``assert_*`` calls and
calls to module-level helpers that assert. Those others count as strong.

Rules: ``type-only``, ``not-none-only``, ``len-only``, ``empty-input-only``, ``no-assert``.
Tests with syntax errors are skipped: the author is mid-edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tree_sitter import Node

from prism_lsp.analysis.discovery import Discovered, RawTest, discover
from prism_lsp.analysis.span import Span
from prism_lsp.analysis.suite_map import SuiteMap

KIND = "weak-assertion"

MESSAGES: dict[str, str] = {
    "type-only": (
        "Only checks the type of the result: an implementation returning any value of that "
        "type passes. Assert the value the statement requires."
    ),
    "not-none-only": (
        "Only checks that the result is not None (or is truthy): almost any implementation "
        "passes. Assert the exact value the statement requires."
    ),
    "len-only": (
        "Only checks the length of the result: an implementation returning the wrong "
        "elements passes. Assert the contents too."
    ),
    "empty-input-only": (
        "Only calls the code under test with empty or zero input: an implementation that "
        "handles nothing else passes. Add a case with typical, non-empty input."
    ),
    "no-assert": (
        "This test asserts nothing: it passes for every implementation that does not raise. "
        "Assert on the result the statement requires."
    ),
}


@dataclass(frozen=True)
class StaticFinding:
    """One static finding on a test. ``span`` is where to show it: the test's name for
    ``no-assert``, else the first weak assert. ``rule`` is one of :data:`MESSAGES`."""

    kind: str
    rule: str
    span: Span
    test_name: str
    message: str


def static_findings(suite_map_or_text: SuiteMap | str) -> list[StaticFinding]:
    """Weak-assertion findings for every test of the suite, in source order.

    A test may get several (``assert isinstance(f([]), list)`` is both ``type-only`` and
    ``empty-input-only``). Never raises on broken code.
    """
    text = suite_map_or_text.text if isinstance(suite_map_or_text, SuiteMap) else suite_map_or_text
    discovered = discover(text)
    findings: list[StaticFinding] = []
    for test in discovered.tests:
        if test.outer.has_error:
            continue
        findings.extend(_test_findings(test, discovered))
    return findings


# --- per test -------------------------------------------------------------------------


def _test_findings(test: RawTest, discovered: Discovered) -> Iterator[StaticFinding]:
    source = discovered.source
    body = test.func.child_by_field_name("body")
    conditions = [_condition(a.node) for a in test.asserts]
    other_checks = body is not None and _has_other_check(body, discovered.asserting_helpers)
    if not conditions:
        if not other_checks:
            name = test.func.child_by_field_name("name") or test.func
            yield _finding("no-assert", source.span(name, test.chunk), test)
        return
    if other_checks or any(c is None for c in conditions):
        return
    for rule, predicate in _ASSERT_RULES.items():
        if all(predicate(c) for c in conditions if c is not None):
            yield _finding(rule, source.span(test.asserts[0].node, test.chunk), test)
    empty_at = _empty_input_only(test, body)
    if empty_at is not None:
        yield _finding("empty-input-only", source.span(test.asserts[empty_at].node, test.chunk), test)


def _finding(rule: str, span: Span, test: RawTest) -> StaticFinding:
    return StaticFinding(KIND, rule, span, test.name, MESSAGES[rule])


def _condition(assert_node: Node) -> Node | None:
    """The asserted expression (not the message), parentheses removed."""
    for child in assert_node.children:
        if child.is_named and child.type != "comment":
            return _unwrap(child)
    return None


def _unwrap(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _operands(node: Node) -> list[Node]:
    return [_unwrap(c) for c in node.named_children if c.type != "comment"]


def _operators(node: Node) -> list[str]:
    return [c.type for c in node.children if not c.is_named]


def _callee(call: Node) -> str:
    """Dotted name of what a call calls (``isinstance``, ``pytest.raises``), or ``""``."""
    function = call.child_by_field_name("function")
    if function is None or function.type not in ("identifier", "attribute"):
        return ""
    return function.text.decode("utf-8", errors="replace") if function.text else ""


def _last_name(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _both_sides(node: Node, predicate: Callable[[Node], bool]) -> bool:
    """``a and b`` / ``a or b``: both sides weak the same way."""
    return node.type == "boolean_operator" and all(predicate(o) for o in _operands(node))


# --- type-only ------------------------------------------------------------------------


def _is_type_check(node: Node) -> bool:
    node = _unwrap(node)
    if node.type == "call":
        return _callee(node) in ("isinstance", "issubclass")
    if node.type == "not_operator":
        arg = node.child_by_field_name("argument")
        return arg is not None and _is_type_check(arg)
    if node.type == "comparison_operator":
        ops = _operands(node)
        return len(ops) == 2 and any(o.type == "call" and _callee(o) == "type" for o in ops)
    return _both_sides(node, _is_type_check)


# --- not-none-only --------------------------------------------------------------------


def _is_not_none_check(node: Node) -> bool:
    node = _unwrap(node)
    if node.type in ("identifier", "attribute", "subscript"):
        # Bare truthiness of a stored result. A call (`assert is_prime(7)`) is a real
        # predicate check, so calls are deliberately not included.
        return True
    if node.type == "comparison_operator":
        ops, operators = _operands(node), _operators(node)
        return len(ops) == 2 and operators in (["is not"], ["!="]) and any(o.type == "none" for o in ops)
    return _both_sides(node, _is_not_none_check)


# --- len-only -------------------------------------------------------------------------


def _is_len_call(node: Node) -> bool:
    return node.type == "call" and _callee(node) == "len"


def _is_len_check(node: Node) -> bool:
    node = _unwrap(node)
    if _is_len_call(node):
        return True
    if node.type == "comparison_operator":
        ops = _operands(node)
        # `len(r) == 3`, `len(r) > 0`, `len(r) == len(xs)`: the length is all that is compared.
        return any(_is_len_call(o) for o in ops) and all(
            _is_len_call(o) or o.type in ("integer", "identifier", "attribute", "unary_operator") for o in ops
        )
    return _both_sides(node, _is_len_check)


_ASSERT_RULES: dict[str, Callable[[Node], bool]] = {
    "type-only": _is_type_check,
    "not-none-only": _is_not_none_check,
    "len-only": _is_len_check,
}


# --- empty-input-only -----------------------------------------------------------------

# Calls that are not the code under test: builtins used to inspect results, pytest itself.
_NOT_SUBJECT = frozenset(
    """len isinstance issubclass type sorted list set dict tuple frozenset str bytes int float
    bool repr abs min max sum any all range enumerate zip map filter print hasattr getattr
    iter next reversed round callable id vars approx""".split()
)

_EMPTY_CONSTRUCTORS = frozenset({"list", "set", "dict", "tuple", "frozenset", "str", "bytes"})


def _empty_input_only(test: RawTest, body: Node | None) -> int | None:
    """Index of the assert to point at when every call of the code under test (with
    arguments) gets only empty/zero literals; None when the rule does not fire."""
    if body is None:
        return None
    subject_calls = [c for c in _calls(body) if _is_subject(c) and _arguments(c)]
    if not subject_calls or not all(all(_is_empty_literal(a) for a in _arguments(c)) for c in subject_calls):
        return None
    for index, raw in enumerate(test.asserts):
        start, end = raw.node.start_byte, raw.node.end_byte
        if any(start <= c.start_byte < end for c in subject_calls):
            return index
    return 0


def _calls(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "call":
            yield current
        if current.type in ("function_definition", "class_definition", "lambda"):
            # Code defined here runs only if called; its calls are not the test's input.
            if current is not node:
                continue
        stack.extend(reversed(current.children))


def _is_subject(call: Node) -> bool:
    callee = _callee(call)
    if not callee:
        return False
    if callee.startswith(("pytest.", "mock.", "unittest.")):
        return False
    return _last_name(callee) not in _NOT_SUBJECT


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return []
    out: list[Node] = []
    for arg in args.named_children:
        if arg.type == "comment":
            continue
        if arg.type == "keyword_argument":
            value = arg.child_by_field_name("value")
            if value is not None:
                out.append(_unwrap(value))
        else:
            out.append(_unwrap(arg))
    return out


def _is_empty_literal(node: Node) -> bool:
    if node.type in ("list", "tuple", "dictionary", "set"):
        return node.named_child_count == 0
    if node.type == "string":
        return not any(c.type in ("string_content", "interpolation") for c in node.children)
    if node.type in ("none", "false"):
        return True
    if node.type in ("integer", "float"):
        text = (node.text or b"").decode().replace("_", "").lower()
        try:
            return float(text) == 0
        except ValueError:
            return False
    if node.type == "call":
        return _callee(node) in _EMPTY_CONSTRUCTORS and not _arguments(node)
    return False


# --- checks other than assert statements ----------------------------------------------

# `skip`/`xfail` are not checks, but a test that skips itself is not "asserting nothing".
_PYTEST_CHECKS = frozenset({"raises", "fail", "warns", "deprecated_call", "skip", "xfail", "importorskip"})


def _has_other_check(body: Node, asserting_helpers: set[str]) -> bool:
    """True when the body can fail on purpose without an assert statement."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "raise_statement":
            return True
        if node.type == "call":
            callee = _callee(node)
            name = _last_name(callee)
            if name in _PYTEST_CHECKS and (callee == name or callee.startswith("pytest.")):
                return True
            if name.startswith("assert") or callee in asserting_helpers:
                return True
        stack.extend(node.children)
    return False

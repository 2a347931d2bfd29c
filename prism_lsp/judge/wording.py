"""Say which value was expected and which one a candidate produced, only when that is certain.

pytest reports a failed `assert a == b` as ``assert <a shown> == <b shown>``: the
message keeps the source's operand order but not which side is the expectation. The
source does: when exactly one operand is a constant (a literal, an ALL_CAPS name, or an
expression built only from those), that operand is what the author expected, and the
other side is what the program gave. Anything else (another operator, chained
comparisons, both or neither side constant, a message that does not split cleanly)
keeps pytest's neutral ``assert 2 == 3``: a wrong "expected" would teach the wrong thing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_CAPS = re.compile(r"_*[A-Z][A-Z0-9_]*")
_EQ = " == "
_JOIN = " — assert "  # how the runner joins an assertion's own message to pytest's comparison line


@dataclass(frozen=True)
class Compared:
    """The two sides of a failed equality, as pytest showed them."""

    expected: str
    got: str
    note: str = ""  # the author's own assertion message (first line), '' when there is none

    def phrase(self) -> str:
        text = f"expected {self.expected}, got {self.got}"
        return f"{text} ({self.note})" if self.note else text


def compared(message: str, assertion_source: str | None) -> Compared | None:
    """Expected and actual values of the failed assert `assertion_source`, from pytest's `message`.

    None whenever the mapping is not certain (see the module docstring).
    """
    if not assertion_source:
        return None
    sides = _constant_side(assertion_source)
    split = _comparison_line(message)
    if sides is None or split is None:
        return None
    expected_node, expected_on_right = sides
    note, body = split
    parts = _split(body, expected_node, expected_on_right)
    if parts is None:
        return None
    left, right = parts
    expected, got = (right, left) if expected_on_right else (left, right)
    return Compared(expected, got, note)


def _constant_side(source: str) -> tuple[ast.expr, bool] | None:
    """(the constant operand, whether it is on the right) of `assert x == CONST` / `assert CONST == x`."""
    try:
        tree = ast.parse(source.strip())
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    test = tree.body[0].test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    left_const, right_const = _is_constant(left), _is_constant(right)
    if left_const == right_const:  # both constant or neither: no side is "the program's"
        return None
    return (right, True) if right_const else (left, False)


def _is_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return bool(_CAPS.fullmatch(node.id))
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)) and _is_constant(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_constant(node.left) and _is_constant(node.right)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_constant(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_constant(k) for k in node.keys) and all(_is_constant(v) for v in node.values)
    return False


def _comparison_line(message: str) -> tuple[str, str] | None:
    """(author's note, text after `assert `) of pytest's comparison line in `message`."""
    lines = [ln.strip() for ln in (message or "").strip().splitlines()]
    if not lines:
        return None
    first = lines[0]
    if first.startswith("assert "):
        return "", first[len("assert ") :]
    if first.count(_JOIN) == 1:  # one line from the runner: "<note> — assert 2 == 3"
        note, body = first.split(_JOIN)
        return note, body
    # pytest's own multi-line form: the note's lines, then the comparison line
    found = [ln for ln in lines[1:] if ln.startswith("assert ")]
    if len(found) == 1:
        return first, found[0][len("assert ") :]
    return None


def _split(body: str, expected: ast.expr, on_right: bool) -> tuple[str, str] | None:
    """Cut `body` at the ` == ` between the two operands.

    A literal expectation is checked against what pytest showed, which also finds the
    right ` == ` when a value contains one; otherwise the cut must be unique.
    """
    cuts = [i for i in range(len(body)) if body.startswith(_EQ, i)]
    try:
        value = ast.literal_eval(expected)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return (body[: cuts[0]], body[cuts[0] + len(_EQ) :]) if len(cuts) == 1 else None
    fits = [
        (body[:i], body[i + len(_EQ) :]) for i in cuts if _shows(body[i + len(_EQ) :] if on_right else body[:i], value)
    ]
    return fits[0] if len(fits) == 1 else None


def _shows(text: str, value: object) -> bool:
    """Whether pytest's rendering `text` is exactly the literal `value` (truncated reprs are not)."""
    try:
        shown = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(shown) is type(value) and shown == value

"""What one program did on one call, and the views under which behaviours are compared.

A probe reports a result as its `repr`. Only results that are Python literals
(`ast.literal_eval` reads them back, and they read back equal) can be compared
and asserted; anything else (an object at some address, a truncated repr) is
opaque and never evidence of a difference.

A **view** is a comparison a test author would write when the statement leaves
one aspect open: the exact value, the items as a list (list vs tuple), sorted
items (any order), case-folded text, or text without leading zeros. Witness
search asserts in the strongest view on which every valid candidate agrees.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass

from prism_lsp.witness.built import as_built, built_text


@dataclass(frozen=True)
class Behaviour:
    """One program's behaviour on one call, as the probe reported it."""

    value: str | None = None  # repr of the result
    type: str | None = None
    exception: str | None = None  # exception type name (builtins bare, others module.Qualname)
    mutated: bool = False
    error: str | None = None  # the call could not be judged: timeout, exited, repr-limit, ...
    # What the result, an instance of a class of the program, did: (op id, its behaviour) in the
    # runner's order (see `witness.protocol`); empty for any other result.
    protocol: tuple[tuple[str, Behaviour], ...] = ()

    @property
    def judged(self) -> bool:
        return self.error is None

    def shown(self) -> str:
        """How this behaviour reads in a message: the value, `raises T`, or the error."""
        if self.error:
            return f"error ({self.error})"
        if self.exception:
            return f"raises {self.exception}"
        return self.value or "?"


class Opaque:
    """Marker of a result that is not a round-tripping Python literal."""


OPAQUE = Opaque()


def decode(text: str | None) -> object:
    """The Python value of a probe's repr, or OPAQUE (callers must not change the value: it is shared)."""
    if text is None:
        return OPAQUE
    return _decode(text)


@functools.lru_cache(maxsize=65536)  # a search compares the same few reprs thousands of times
def _decode(text: str) -> object:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return OPAQUE
    return value if round_trips(value) else OPAQUE


def round_trips(value: object) -> bool:
    """`repr(value)` is a literal that reads back equal (so it can be written into a suite)."""
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def literal(value: object) -> str:
    """The source text of `value` in a suite (sets sorted, so the text is stable; an argument the
    program builds as the call that builds it)."""
    built = as_built(value)
    if built is not None:
        return built_text(built, literal)
    if isinstance(value, set) and value:
        try:
            items = sorted(value)
        except TypeError:
            items = sorted(value, key=repr)
        return "{" + ", ".join(literal(v) for v in items) + "}"
    return repr(value)


@dataclass(frozen=True)
class View:
    """A comparison: `apply` maps a value to what is compared (raises TypeError when it does not
    apply); `wrap` writes the same in the suite around the call's source text."""

    name: str
    apply: Callable[[object], object]
    wrap: Callable[[str], str]


def _as_list(v):
    if not isinstance(v, (list, tuple)):
        raise TypeError
    return list(v)


def _sorted(v):
    if not isinstance(v, (list, tuple)):
        raise TypeError
    return sorted(v)


def _casefold(v):
    if not isinstance(v, str):
        raise TypeError
    return v.casefold()


def _no_leading_zeros(v):
    if not isinstance(v, str):
        raise TypeError
    return v.lstrip("0")


EXACT = View("exact", lambda v: v, lambda call: call)
# Strongest first: search takes the first view on which the valid candidates agree.
VIEWS: tuple[View, ...] = (
    EXACT,
    View("list", _as_list, lambda call: f"list({call})"),
    View("sorted", _sorted, lambda call: f"sorted({call})"),
    View("casefold", _casefold, lambda call: f"{call}.casefold()"),
    View("leading-zeros", _no_leading_zeros, lambda call: f'{call}.lstrip("0")'),
)


def key(behaviour: Behaviour, view: View) -> tuple | None:
    """What `view` compares of `behaviour`: ("raises", T), ("value", v), ("other", repr) when the
    view does not apply to this value (an assertion in that view would fail on it); None when
    the behaviour cannot be judged."""
    if not behaviour.judged:
        return None
    if behaviour.exception:
        return ("raises", behaviour.exception)
    value = decode(behaviour.value)
    if value is OPAQUE:
        return None
    try:
        seen = view.apply(value)
    except (TypeError, ValueError):
        return ("other", behaviour.value)
    return ("value", repr(seen), seen) if round_trips(seen) else None


def same(a: tuple | None, b: tuple | None) -> bool:
    return a is not None and b is not None and a[:2] == b[:2]

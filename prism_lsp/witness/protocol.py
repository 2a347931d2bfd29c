"""How a probe's observation of an instance's protocol reads in a suite.

When a call returns an instance of a class the program defines, the runner observes what the
instance does (`prism_lsp/runner/_prism_instance.py`): each observation has a fixed op id, which
this module turns into the expression a test writes around the call (`list(reversed(CALL))`,
`len(CALL)`, `3 in CALL`). Op ids the runner sends that are not here are ignored: the text of a
witness is always written by the host, never by the program.

`focus` maps the methods a change is in (`Reach.methods`) to what the runner is asked to observe
first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# Op id -> the expression around the call's source text (`in:N`: see `expression`).
_TEXTS: dict[str, Callable[[str], str]] = {
    "repr": lambda call: f"repr({call})",
    "len": lambda call: f"len({call})",
    "bool": lambda call: f"bool({call})",
    "first": lambda call: f"{call}[0]",
    "last": lambda call: f"{call}[-1]",
    "reversed": lambda call: f"list(reversed({call}))",
    "iter": lambda call: f"list({call})",
}
_MEMBER = re.compile(r"in:(\d{1,2})")
# The dunder methods whose behaviour the runner's ops show (only these are worth sending as focus).
PROTOCOL_METHODS = frozenset(
    {"__repr__", "__len__", "__bool__", "__getitem__", "__contains__", "__reversed__", "__iter__"}
)


def known(op: str) -> bool:
    """Whether `op` is an op id the host can write as a test."""
    return op in _TEXTS or _MEMBER.fullmatch(op) is not None


def expression(op: str, call: str, positional: tuple, show: Callable[[object], str]) -> str | None:
    """The test's expression of `op` on `call` (its source text; `positional`: the call's own
    positional arguments, `show` writes one), or None when `op` cannot be written."""
    if op in _TEXTS:
        return _TEXTS[op](call)
    member = _MEMBER.fullmatch(op)
    if member is None or int(member.group(1)) >= len(positional):
        return None
    return f"{show(positional[int(member.group(1))])} in {call}"


def focus(methods: Iterable[str]) -> tuple[str, ...]:
    """The protocol methods among `methods` (names such as `numeric_range.__reversed__` or
    `__reversed__`), sorted: what a probe observes first."""
    return tuple(sorted({m.rsplit(".", 1)[-1] for m in methods} & PROTOCOL_METHODS))

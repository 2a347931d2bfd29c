"""Observing a probe's result that is an instance of a class the program defines, through its protocol.

Stdlib only, like the rest of the runner. A call such as `numeric_range(0)` returns an object
whose `repr` tells nothing apart (or is no literal at all); what a test checks is what the object
does: `list(reversed(x))`, `len(x)`, `x[0]`, `v in x`... Each operation the class supports is
applied to the result and reported as one observation:

    {"op": "reversed", "value": repr | null, "exception": "IndexError" | null, "error": null | ...}

Op ids are fixed (`OPS`); the host turns each into the expression a suite writes (see
`prism_lsp.witness.protocol`). `in:N` tests the call's N-th positional argument for membership.
An iteration reads at most `MAX_ITEMS` items (more is an `item-limit` error, never a value); a
value whose text holds an address (`<... at 0x7f...>`) is an `address` error: it would differ from
run to run. The ops of the methods the caller names (`focus`: those holding a change) go first,
then a fixed order, so the same request always observes the same.
"""

from __future__ import annotations

import itertools
import os
import re
import sys

MAX_ITEMS = 100
MAX_MEMBERS = 3  # positional arguments tried with `in`
# Op id -> the methods whose behaviour it shows (any one defined makes the op apply, but `in:`,
# which needs a value: see `observe`). Reading order: what does not consume the object first.
OPS: dict[str, tuple[str, ...]] = {
    "repr": ("__repr__",),
    "len": ("__len__",),
    "bool": ("__bool__", "__len__"),
    "first": ("__getitem__",),
    "last": ("__getitem__",),
    "in": ("__contains__",),
    "reversed": ("__reversed__",),
    "iter": ("__iter__", "__getitem__"),  # `iter()` falls back on `__getitem__`
}
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_SCALARS = (bool, int, float, str)


class ItemLimit(Exception):
    """An iteration yielded more than `MAX_ITEMS` items."""


def is_program_instance(value: object, root: str) -> bool:
    """Whether `value`'s class is defined in a module of the program's tree `root` (a realpath)."""
    cls = type(value)
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    try:
        return os.path.realpath(path).startswith(root + os.sep)
    except (OSError, ValueError):
        return False


def _defines(cls: type, method: str) -> bool:
    found = getattr(cls, method, None)
    if found is None:
        return False
    # `object`'s own repr is an address, and every class has it: not the class's protocol.
    return not (method == "__repr__" and found is object.__repr__)


def _items(iterator) -> list:
    items = list(itertools.islice(iterator, MAX_ITEMS + 1))
    if len(items) > MAX_ITEMS:
        raise ItemLimit
    return items


def _apply(op: str, value: object, member: object):
    if op == "repr":
        return repr(value)
    if op == "len":
        return len(value)  # type: ignore[arg-type]
    if op == "bool":
        return bool(value)
    if op == "first":
        return value[0]  # type: ignore[index]
    if op == "last":
        return value[-1]  # type: ignore[index]
    if op == "in":
        return member in value  # type: ignore[operator]
    if op == "reversed":
        return _items(reversed(value))  # type: ignore[call-overload]
    return _items(iter(value))  # type: ignore[call-overload]


def planned(value: object, args: tuple, focus: tuple[str, ...]) -> list[tuple[str, str, object]]:
    """(op id, op, member) of every op `value`'s class supports, `focus`'s methods' ops first."""
    cls = type(value)
    ops = [op for op, methods in OPS.items() if any(_defines(cls, m) for m in methods)]
    ops.sort(key=lambda op: not set(OPS[op]) & set(focus))  # stable: the fixed order within
    out: list[tuple[str, str, object]] = []
    for op in ops:
        if op != "in":
            out.append((op, op, None))
            continue
        seen: list[object] = []
        for i, a in enumerate(args):
            if isinstance(a, _SCALARS) and a not in seen and len(seen) < MAX_MEMBERS:
                seen.append(a)
                out.append((f"in:{i}", op, a))
    return out


def observe(
    value: object, args: tuple, focus: tuple[str, ...], repr_limit: int, exception_name, timeout
) -> tuple[list[dict], bool]:
    """Each supported op's observation of `value` (see the module's docstring), and whether the
    caller's time limit (its exception `timeout`) cut them short: the op running then is a
    `timeout` error, those after it are left out. `exception_name` names an exception as the
    probe does."""
    out: list[dict] = []
    for op_id, op, member in planned(value, args, focus):
        row: dict[str, object] = {"op": op_id, "value": None, "exception": None, "error": None}
        try:
            text = repr(_apply(op, value, member))
            if len(text) > repr_limit:
                row["error"] = "repr-limit"
            elif _ADDRESS.search(text):
                row["error"] = "address"
            else:
                row["value"] = text
        except timeout:
            row["error"] = "timeout"
            out.append(row)
            return out, True
        except ItemLimit:
            row["error"] = "item-limit"
        except BaseException as exc:  # the program may raise anything, SystemExit included
            row["exception"] = exception_name(exc)
        out.append(row)
    return out, False

"""Entries for the methods a change is in, called directly on an instance made as the suite makes one.

A repository's tests often reach a changed method only through objects no literal makes
(marshmallow's `Boolean._serialize`, called by `Schema.dump` on a schema class the test defines):
no suite call seeds it. When the suite constructs the method's class from literals
(`fields.Boolean()`), the method becomes an entry of its own, `Boolean()._serialize(v, None, None)`:
each required positional argument in turn takes a value of a palette of every kind (None, bools,
numbers, text, empty and non-empty lists, dicts and tuples: hashable or not), the others None.
The search then mutates those seeds as it does the suite's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from prism_lsp.witness.entry import CallForm, Entry
from prism_lsp.witness.seeds import SuiteCall

PALETTE: tuple[object, ...] = (None, True, False, 0, 1, -1, 2.5, "", "a", "True", [], [1], {}, {"a": 1}, (), (1,))
MAX_CONSTRUCTIONS = 3  # of the suite's constructor calls, the smallest, each a seed's start
MAX_ARITY = 4  # a method taking more required arguments is left to the suite's own calls


def palette_args(arity: int) -> list[tuple]:
    """Argument tuples of `arity` values: all None, then each position in turn over the palette."""
    none = (None,) * arity
    out: dict[str, tuple] = {repr(none): none}  # a method of no argument: its one call
    for position in range(arity):
        for value in PALETTE:
            args = (None,) * position + (value,) + (None,) * (arity - position - 1)
            out.setdefault(repr(args), args)
    return list(out.values())


def method_entries(
    entries: list[Entry], calls: list[SuiteCall], arities: Mapping[str, int], ranked: Callable[[Entry], bool]
) -> tuple[list[Entry], list[SuiteCall]]:
    """For each changed method (`arities`: `Class.method` -> its required positional arguments, self
    left out) whose class the suite constructs with positional literals (a plain call of an entry
    `ranked(entry)` holds at the change), the method's entry and its palette seeds (as calls of no
    line: no suite makes them)."""
    constructions: dict[str, list[tuple]] = {}
    for c in calls:
        if c.via is None:
            constructions.setdefault(c.entry, []).append(c.args)
    new_entries: list[Entry] = []
    new_calls: list[SuiteCall] = []
    for method, arity in sorted(arities.items()):
        cls, _, name = method.rpartition(".")
        if not cls or "." in cls or (name.startswith("__") and name.endswith("__")) or arity > MAX_ARITY:
            continue
        for e in entries:
            made = constructions.get(e.spec)
            if e.form is not None or e.function != cls or not made or not ranked(e):
                continue
            starts = sorted({repr(a): a for a in made}.values(), key=lambda a: (len(repr(a)), repr(a)))
            for init in starts[:MAX_CONSTRUCTIONS]:
                entry = Entry(e.module, method, e.local_names, CallForm(init=(len(init), ()), positional=arity))
                if entry not in new_entries:
                    new_entries.append(entry)
                local = e.local_names[0] if e.local_names else cls
                new_calls += [
                    SuiteCall(entry.spec, local, init + args, 0, "", None, entry) for args in palette_args(arity)
                ]
    return new_entries, new_calls

"""Witness search over probe results: for each program to tell apart from the valid ones, the
smallest input on which every valid candidate behaves the same and that program differs.

Inputs on which the valid candidates themselves disagree (in the exact view) are
the statement's open dimension: they are collected, never asserted. A witness
is asserted in the strongest view (see `values.VIEWS`) on which the valid
candidates agree, so an input that is open in its exact value (ties in any
order) can still witness a difference they all agree on (a lost item).
Errors (a timeout, an exit, an opaque result) on any program make an input
unknown for it: never a witness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from prism_lsp.witness.entry import Entry
from prism_lsp.witness.probe import Prober, Program
from prism_lsp.witness.protocol import expression
from prism_lsp.witness.values import EXACT, VIEWS, Behaviour, View, key, literal, same

MAX_OPEN = 20


@dataclass(frozen=True)
class Witness:
    """An input that tells `program` apart from every valid candidate."""

    program: str
    entry: str  # module:function
    args: tuple
    call: str  # the call as the suite spells it, e.g. `mean_rounded([-3, -4])`
    kind: Literal["value", "raises", "mutates"]
    view: str  # name of the view the valid candidates agree in (see values.VIEWS)
    expected: str  # source text: the agreed value in that view, the exception type, or the unchanged arguments
    got: dict[str, str] = field(default_factory=dict)  # program id -> what it did (shown form)

    @property
    def assertion_call(self) -> str:
        """The compared expression: the call wrapped in the witness's view."""
        return next(v for v in VIEWS if v.name == self.view).wrap(self.call)


@dataclass(frozen=True)
class OpenInput:
    """An input on which valid candidates disagree: the statement leaves it open."""

    entry: str
    call: str
    values: dict[str, str]  # valid candidate id -> what it returned (shown form)


@dataclass
class SearchResult:
    witnesses: dict[str, Witness] = field(default_factory=dict)  # program id -> its smallest witness
    open_inputs: list[OpenInput] = field(default_factory=list)
    inputs: int = 0


def call_text(name: str, args: tuple) -> str:
    return f"{name}({', '.join(literal(a) for a in args)})"


def _agreed(valid: list[Behaviour]) -> tuple[View, tuple] | None:
    """The strongest view in which every valid behaviour is the same (and assertable)."""
    for view in VIEWS:
        keys = [key(b, view) for b in valid]
        if keys[0] is None or keys[0][0] == "other":
            continue
        if keys[0][0] == "raises" and (view is not EXACT or "." in keys[0][1]):
            return None  # only builtin exception types are written as pytest.raises(T)
        if all(same(k, keys[0]) for k in keys[1:]):
            return view, keys[0]
    return None


def _protocol_views(
    vb: list[Behaviour], entry: Entry, args: tuple, call: str
) -> list[tuple[str, str, tuple[View, tuple] | None]]:
    """(op id, its expression, the view the valid candidates agree in) of each protocol op every valid
    candidate's result was observed under (an instance of the program's class: see `witness.protocol`)."""
    positional = args if entry.form is None else entry.form.split(args)[2]
    out = []
    ops = [dict(b.protocol) for b in vb]
    for op, _ in vb[0].protocol:
        seen = [o.get(op) for o in ops]
        text = expression(op, call, positional, literal)
        if text is None or not all(b is not None and b.judged for b in seen):
            continue
        out.append((op, text, _agreed([b for b in seen if b is not None])))
    return out


def find_witnesses(
    prober: Prober,
    entry: Entry,
    valid: list[Program],
    others: list[Program],
    inputs: list[tuple],
    deadline: float | None = None,
    focus: tuple[str, ...] = (),
) -> SearchResult:
    """Probe `valid` and `others` on `inputs` (smallest first) and return, for each program of
    `others` that can be told apart, its first witness, plus the open inputs seen. Past `deadline`
    the probes stop: an input left unanswered is no witness. A result that is an instance of the
    program's class is compared on its protocol too (`list(reversed(CALL))`...), the ops of the
    `focus` methods observed first."""
    result = SearchResult(inputs=len(inputs))
    if not valid or not inputs:
        return result
    inputs = [a for a in inputs if entry.accepts(a)]
    calls = [entry.literal(a) for a in inputs]
    seen = prober.probe(valid + others, entry.target, calls, deadline=deadline, focus=focus)
    name = entry.local_names[0] if entry.local_names else entry.function
    fallback: dict[str, Witness] = {}
    for i, args in enumerate(inputs):
        if len(result.witnesses) == len(others) and len(result.open_inputs) >= MAX_OPEN:
            break  # every program told apart, and enough open inputs to show
        vb = [seen[p.id][i] for p in valid]
        if not all(b.judged for b in vb):
            continue
        call = entry.call_text(name, args, literal)
        exact = [key(b, EXACT) for b in vb]
        if not all(same(k, exact[0]) for k in exact[1:]) and len(result.open_inputs) < MAX_OPEN:
            result.open_inputs.append(OpenInput(entry.spec, call, {p.id: b.shown() for p, b in zip(valid, vb)}))
        keeps_args = all(not b.mutated for b in vb)
        observed = [(None, call, _agreed(vb)), *_protocol_views(vb, entry, args, call)]
        for p in others:
            if p.id in result.witnesses:
                continue
            b = seen[p.id][i]
            if not b.judged:
                continue
            raised = False  # the call itself raised where the valid candidates agree: no "mutates"
            for op, text, agreed in observed:
                theirs = b if op is None else dict(b.protocol).get(op)
                if agreed is None or theirs is None or not theirs.judged:
                    continue
                view, want = agreed
                mine = key(theirs, view)
                if mine is None or same(mine, want):
                    continue
                kind: Literal["raises", "value"] = "raises" if want[0] == "raises" else "value"
                expected = want[1] if kind == "raises" else literal(want[2])
                w = Witness(p.id, entry.spec, args, text, kind, view.name, expected, {p.id: theirs.shown()})
                if kind == "value":
                    result.witnesses[p.id] = w
                    break
                # A returned value is the stronger evidence: keep looking, this is the fallback.
                fallback.setdefault(p.id, w)
                raised = raised or op is None
            if p.id not in result.witnesses and not raised and keeps_args and b.mutated:
                result.witnesses[p.id] = Witness(
                    p.id, entry.spec, args, call, "mutates", EXACT.name, literal(args), {p.id: "changes its arguments"}
                )
    for pid, w in fallback.items():
        result.witnesses.setdefault(pid, w)
    return result

"""The open dimension at one line of the suite: calls there on which the valid candidates disagree.

What the hover says on an over-specified assertion: "valid candidates disagree on
`mean_rounded([1, 4])`: 2 or 3 — the statement leaves this open".
"""

from __future__ import annotations

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Task
from prism_lsp.witness.entry import entry_points
from prism_lsp.witness.panel_search import prober_for, programs_of
from prism_lsp.witness.search import OpenInput, call_text
from prism_lsp.witness.seeds import suite_calls
from prism_lsp.witness.values import EXACT, key, same


def open_at_line(
    session: EngineSession, task: Task, suite_text: str, line: int, sandbox: str | None = None
) -> list[OpenInput]:
    """Calls of entry points on 1-based `line` whose results differ between valid candidates."""
    entries = entry_points(suite_text, task.initial, task.entry)
    calls = [c for c in suite_calls(suite_text, entries) if c.line == line]
    if not calls:
        return []
    valid = [p for p in programs_of(task, session.cache) if p.valid]
    prober = prober_for(session.pool_for(task, sandbox), task)
    out = []
    for c in calls:
        seen = prober.probe(valid, c.entry, [repr(c.args)])
        behaviours = [seen[p.id][0] for p in valid]
        if not all(b.judged for b in behaviours):
            continue
        keys = [key(b, EXACT) for b in behaviours]
        if not all(same(k, keys[0]) for k in keys[1:]):
            out.append(
                OpenInput(
                    c.entry, call_text(c.local_name, c.args), {p.id: b.shown() for p, b in zip(valid, behaviours)}
                )
            )
    return out


def describe(o: OpenInput) -> str:
    """`valid candidates disagree on `f(x)`: 1 or 2 — the statement leaves this open` (no ids)."""
    values = list(dict.fromkeys(o.values.values()))
    shown = ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else values[0]
    return f"valid candidates disagree on `{o.call}`: {shown} — the statement leaves this open"

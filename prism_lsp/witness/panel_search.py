"""Witness search on a whole task: entry points and inputs from the suite, probes on every program.

The initial program counts as a program to tell apart (a suite that misses the
baseline needs a witness between it and the valid candidates).
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.session import EngineSession
from prism_lsp.materialize import MaterializeError, TreeCache
from prism_lsp.model.task import Task
from prism_lsp.witness.changed import method_entries
from prism_lsp.witness.entry import Entry, entry_points
from prism_lsp.witness.inputs import generate, program_literals
from prism_lsp.witness.probe import Prober, Program
from prism_lsp.witness.protocol import focus as protocol_focus
from prism_lsp.witness.search import SearchResult, find_witnesses
from prism_lsp.witness.seeds import SuiteCall, formed_entries, suite_calls

BASELINE = "initial"
PROGRESS_EVERY_S = 5.0  # a search longer than this says how far it got
_probers: weakref.WeakKeyDictionary[RunnerPool, Prober] = weakref.WeakKeyDictionary()
_probers_lock = threading.Lock()


def prober_for(pool: RunnerPool, task: Task) -> Prober:
    """One prober (and so one probe cache) per runner pool, for as long as the pool lives."""
    with _probers_lock:
        prober = _probers.get(pool)
        if prober is None:
            prober = _probers[pool] = Prober(pool, memory_mb=task.memory_mb, pythonpath=probe_roots(task))
        return prober


def probe_roots(task: Task) -> tuple[str, ...]:
    """The import roots a probe needs: the task's, and `src` of a src layout whose pytest configuration
    puts it on the path itself (the task then declares none, but a probe runs without pytest)."""
    if "src" not in task.pythonpath and (task.initial / "src").is_dir():
        return (*task.pythonpath, "src")
    return task.pythonpath


def programs_of(task: Task, cache: TreeCache) -> list[Program]:
    """The initial program and every candidate whose tree builds."""
    out = []
    try:
        out.append(Program(BASELINE, False, cache.baseline(task)))
    except (MaterializeError, OSError):
        pass
    for c in task.candidates:
        try:
            out.append(Program(c.id, c.valid, cache.candidate(task, c)))
        except (MaterializeError, OSError):
            continue  # a candidate that does not build is an error finding of its own
    return out


@dataclass
class PanelSearch:
    """What a search on a task found, and what it was based on."""

    entries: list[Entry]
    calls: list[SuiteCall]
    result: SearchResult
    programs: dict[str, Program] = field(default_factory=dict)
    stopped: bool = False  # the deadline came before every entry point was searched
    inputs: dict[str, list[tuple]] = field(default_factory=dict)  # entry spec -> the inputs probed


@dataclass(frozen=True)
class Reach:
    """Where a change is: its modules and the functions and classes around its lines. Entry points
    there are searched first (a repository's tests call hundreds of functions of other modules).
    `methods`: the methods around its lines (`Class.method` -> its required positional arguments,
    self left out); an instance's protocol methods among them are observed first
    (`witness.protocol.focus`), the others called directly (`witness.changed`)."""

    modules: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    methods: Mapping[str, int] = field(default_factory=dict)
    words: frozenset[str] = frozenset()  # the names on the changed lines (`fixed`)

    @property
    def focus(self) -> tuple[str, ...]:
        return protocol_focus(self.methods)

    def rank(self, entry: Entry) -> int:
        named = entry.function.split(".")[0] in self.names
        if entry.module in self.modules:
            return 0 if named else 1
        # A package re-exporting the changed module's names (more-itertools' tests call
        # `more_itertools.chunked`, defined in `more_itertools.more`): its name there is the change.
        if named and any(m.startswith(entry.module + ".") for m in self.modules):
            return 0
        return 2

    def order(self, entry: Entry) -> tuple[int, int]:
        """Where `entry` is searched: by `rank`, and within a rank a call passing a keyword the changed
        lines name first (`spring_layout(G, fixed=[0])` for a fix of how `fixed` is read)."""
        keywords = set(entry.form.keywords) if entry.form is not None else set()
        return self.rank(entry), 0 if keywords & self.words else 1


def seeded_entries(task: Task, suite_text: str, reach: Reach | None = None) -> tuple[list[Entry], list[SuiteCall]]:
    """The entry points the suite calls with literal arguments (keyword and method calls included,
    each an entry of its own call form), and those calls; those `reach` names first."""
    entries = [
        e for e in entry_points(suite_text, task.initial, task.entry, task.pythonpath) if e.local_names or task.entry
    ]
    calls = suite_calls(suite_text, entries, forms=True)
    entries = entries + formed_entries(calls)
    if reach is not None:
        # The changed methods, called on an instance made as the suite makes one: first, as no
        # suite call may reach them (their arguments are objects no literal makes).
        direct, palette = method_entries(entries, calls, reach.methods, lambda e: reach.rank(e) == 0)
        entries, calls = direct + entries, calls + palette
        entries.sort(key=reach.order)  # stable: the suite's order within a rank
    return entries, calls


def entry_inputs(task: Task, entry: Entry, seeds: list[tuple], dictionary: dict) -> list[tuple]:
    """The inputs to probe `entry` on: seeds, their mutations, random and Hypothesis inputs of their
    shape (from the annotations only for a plain call: a call form fixes the arguments' layout)."""
    from prism_lsp.witness.strategies import examples  # Hypothesis loads only when a search runs

    drawn = (
        examples(seeds, task.initial, entry.module, entry.function)
        if entry.form is None
        else examples(seeds, task.initial, entry.module, "")
    )
    return [a for a in generate(seeds, dictionary, extra=drawn) if entry.accepts(a)]


def calls_by_entry(calls: list[SuiteCall]) -> dict[str, list[tuple]]:
    """Each entry's call arguments, in source order: grouped once (not one scan of every call
    per entry, quadratic on a repository's test modules)."""
    out: dict[str, list[tuple]] = {}
    for c in calls:
        out.setdefault(c.entry, []).append(c.args)
    return out


def search_panel(
    session: EngineSession,
    task: Task,
    suite_text: str,
    *,
    sandbox: str | None = None,
    targets: set[str] | None = None,
    deadline: float | None = None,
    reach: Reach | None = None,
    progress: Callable[[str], None] | None = None,
    seeded: tuple[list[Entry], list[SuiteCall]] | None = None,
) -> PanelSearch:
    """Witnesses for the initial program and the invalid candidates (or only `targets`); past
    `deadline` (a `time.monotonic()` value) no further entry is searched, nor one whose inputs
    would not be drawn by then (drawing them is host work the probes' deadline does not cut: the
    slowest draw so far is the estimate). `progress` hears, every few seconds, how far it got.
    `seeded`: `seeded_entries(task, suite_text, reach)` when the caller has it already."""
    entries, calls = seeded if seeded is not None else seeded_entries(task, suite_text, reach)
    programs = programs_of(task, session.cache)
    valid = [p for p in programs if p.valid]
    others = [p for p in programs if not p.valid and (targets is None or p.id in targets)]
    result = SearchResult()
    if not entries or not others:
        return PanelSearch(entries, calls, result, {p.id: p for p in programs})
    pool = session.pool_for(task, sandbox)
    prober = prober_for(pool, task)
    dictionary = program_literals(task.initial)
    by_entry = calls_by_entry(calls)
    searched = [e for e in entries if by_entry.get(e.spec)]
    drawn: dict[str, list[tuple]] = {}
    stopped = False
    slowest_draw_s = 0.0
    said = time.monotonic()
    for n, entry in enumerate(searched):
        now = time.monotonic()
        if deadline is not None and now + slowest_draw_s > deadline:
            stopped = True
            break
        if reach is not None and not [p for p in others if p.id not in result.witnesses]:
            break  # a build's search: every program told apart, no further entry adds a witness
        if progress is not None and now - said >= PROGRESS_EVERY_S:
            said = now
            progress(
                f"witness search: entry point {n + 1} of {len(searched)} ({entry.spec}), "
                f"{len([p for p in others if p.id in result.witnesses])} of {len(others)} programs told apart"
            )
        drawn[entry.spec] = entry_inputs(task, entry, by_entry[entry.spec], dictionary)
        slowest_draw_s = max(slowest_draw_s, time.monotonic() - now)
        found = find_witnesses(
            prober,
            entry,
            valid,
            [p for p in others if p.id not in result.witnesses],
            drawn[entry.spec],
            deadline,
            focus=() if reach is None else reach.focus,
        )
        result.witnesses.update(found.witnesses)
        result.open_inputs += found.open_inputs
        result.inputs += found.inputs
        if deadline is not None and time.monotonic() > deadline:
            stopped = True  # this entry's probes were cut short at the deadline
            break
    return PanelSearch(entries, calls, result, {p.id: p for p in programs}, stopped, drawn)

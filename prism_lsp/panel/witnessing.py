"""Probing candidates that are not in the panel yet (mutants, samples) with the witness search.

For each new candidate: its witness against the valid candidates (an input on which they all
agree and it differs; none when it differs only where they disagree, the open dimension, or
nowhere, an equivalent), whether it only crashes on the suites' own inputs, and its behaviour
signature on every probe input (two candidates with the same signature are duplicates).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Candidate, Task
from prism_lsp.witness import BASELINE, Witness, prober_for, programs_of, search_panel
from prism_lsp.witness.entry import Entry
from prism_lsp.witness.inputs import program_literals
from prism_lsp.witness.panel_search import Reach, calls_by_entry, entry_inputs, seeded_entries
from prism_lsp.witness.probe import CUT
from prism_lsp.witness.seeds import SuiteCall

Signature = tuple


# The task's and the initial program's test files seed inputs (a repository's tests call its
# functions with real arguments); bounded, since a repository may hold thousands: networkx's 377
# test files (3.5 MB) parse into one suite in 15 s and 500 MB on the host. Those nearest the
# changed files (the fix's own test module among them) come first.
MAX_PROGRAM_TEST_FILES = 200
MAX_PROGRAM_SEED_BYTES = 1 << 19  # of each of the two kinds, in all
MAX_SEED_FILE_BYTES = 1 << 20
_NOT_TESTS = {".venv", "venv", "site-packages", "node_modules", ".git", ".tox", "build"}


def _nearness(rel: Path, near: tuple[str, ...]) -> int:
    """How many leading folders `rel` shares with the nearest of the `near` files."""
    best = 0
    for other in near:
        shared = 0
        for a, b in zip(rel.parent.parts, Path(other).parent.parts):
            if a != b:
                break
            shared += 1
        best = max(best, shared)
    return best


def _nearest(found: list[Path], base: Path, near: tuple[str, ...]) -> list[Path]:
    """`found` (under `base`), those nearest the `near` files first, within the files' and bytes' caps."""
    found = sorted(found, key=lambda p: -_nearness(p.relative_to(base), near))  # stable: path order within
    out: list[Path] = []
    size = 0
    for path in found[:MAX_PROGRAM_TEST_FILES]:
        size += path.stat().st_size
        if size > MAX_PROGRAM_SEED_BYTES and out:
            break
        out.append(path)
    return out


def _test_files(folder: Path, skip: tuple[Path, ...] = ()) -> list[Path]:
    found = []
    for pattern in ("test_*.py", "*_test.py"):
        for path in sorted(folder.rglob(pattern)):
            # A task made by `prism init` is the repository: its `.venv` holds numpy's and scipy's
            # tests (networkx: 903 files, 16 MB, whose parse took 100 s and 2 GB on the host).
            if _NOT_TESTS & set(path.relative_to(folder).parts) or not path.is_file():
                continue
            if not any(path.resolve().is_relative_to(s) for s in skip):
                found.append(path)
    return found


def seed_files(task: Task, near: tuple[str, ...] = ()) -> list[Path]:
    """Where inputs come from: the verifier, the task's test files outside its programs, then the
    initial program's own test files; of each, those nearest the `near` files (the change) first."""
    skip = (task.initial.resolve(), (task.root / "candidates").resolve())
    files = [] if task.verifier is None else [task.verifier]
    own = [p for p in _test_files(task.root, skip) if p != task.verifier]
    files += _nearest(own, task.root, near)
    return files + [p for p in _nearest(_test_files(task.initial), task.initial, near) if p not in files]


def seed_text(task: Task, near: tuple[str, ...] = ()) -> str:
    """The seed files as one suite text; a file that does not parse on its own is left out (one
    would otherwise hide every other file's calls)."""
    from prism_lsp.witness.entry import parse_suite

    texts = []
    for path in seed_files(task, near):
        try:
            if path.stat().st_size > MAX_SEED_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if parse_suite(text) is not None:
            texts.append(text)
    return "\n\n".join(texts)


@dataclass
class Probing:
    """What probing found for each new candidate (by id)."""

    witnesses: dict[str, Witness] = field(default_factory=dict)
    crash_only: set[str] = field(default_factory=set)
    signatures: dict[str, Signature] = field(default_factory=dict)  # every program but the initial one
    entries: list[str] = field(default_factory=list)
    inputs: int = 0
    unprobed: dict[str, str] = field(default_factory=dict)  # new candidate id -> why it could not be probed
    stopped: bool = False  # the deadline came before every entry point was probed


# Calls tried first on each new candidate: one that fails all of them (does not import, hangs)
# is left out of the search, where every one of hundreds of inputs would cost it a time-out.
SCREEN_CALLS = 3


def _screen(
    session: EngineSession,
    panel: Task,
    new: list[Candidate],
    seeded: tuple[list[Entry], list[SuiteCall]],
    sandbox: str | None,
    deadline: float | None,
    focus: tuple[str, ...] = (),
) -> dict[str, str]:
    """New candidates that fail every call they are screened on (the first entry's inputs, as the
    search draws them, then the suites' smallest calls of each further `seeded` entry): id -> the error."""
    entries, calls = seeded
    programs = [p for p in programs_of(panel, session.cache) if p.id in {c.id for c in new}]
    if not calls or not programs:
        return {}
    prober = prober_for(session.pool_for(panel, sandbox), panel)
    dictionary = program_literals(panel.initial)
    failing: dict[str, str] = {}
    by_entry = calls_by_entry(calls)
    for n, entry in enumerate(e for e in entries if e.spec in by_entry):
        if deadline is not None and time.monotonic() > deadline:
            break
        if n == 0:
            # The first entry's calls are the search's first probes (the same draw, so the probe
            # cache answers them there): one request per program, not two, each paying for a fork
            # and the program's imports (networkx, numpy: seconds). A program that hangs costs
            # no more: its runner gives up a batch after a few time-outs.
            drawn = [entry.literal(a) for a in entry_inputs(panel, entry, by_entry[entry.spec], dictionary)]
        else:
            drawn = sorted({entry.literal(a) for a in by_entry[entry.spec]}, key=lambda r: (len(r), r))
            drawn = drawn[:SCREEN_CALLS]
        seen = prober.probe(programs, entry.target, drawn, deadline=deadline, focus=focus)
        for pid, behaviours in seen.items():
            # A call the deadline left unanswered says nothing: such a candidate fails nothing yet.
            errors = [b.error for b in behaviours if b.error is not None and b.error != CUT]
            if len(errors) == len(behaviours) and (n == 0 or pid in failing):
                failing.setdefault(pid, errors[0])
            else:
                failing.pop(pid, None)
        if not failing:
            break  # every new candidate answered a call: none can fail them all any more
    return failing


def probe_candidates(
    session: EngineSession,
    task: Task,
    new: list[Candidate],
    *,
    sandbox: str | None = None,
    deadline: float | None = None,
    reach: Reach | None = None,
    progress: Callable[[str], None] | None = None,
    near: tuple[str, ...] = (),
) -> Probing:
    """Witnesses, crash-only verdicts and signatures for `new` (and signatures for the panel).
    Past `deadline` (`time.monotonic()`), no further entry point is searched or probed: the
    candidates get what was found so far. `progress` hears how far the search got; `near`: the
    changed files, whose nearest tests seed inputs first."""
    text = seed_text(task, near)
    seeded = seeded_entries(task, text, reach)  # a parse of every seed file: once, for both
    focus = () if reach is None else reach.focus  # the same as the search's: its probes are cached
    every = replace(task, candidates=(*task.candidates, *new))
    unprobed = _screen(session, every, new, seeded, sandbox, deadline, focus)
    if progress is not None:
        progress(
            f"screened {len(new)} mutants on the first entry's inputs and the suites' smallest calls: {len(unprobed)} do not run"
        )
    new = [c for c in new if c.id not in unprobed]
    panel = replace(task, candidates=(*task.candidates, *new))
    search = search_panel(
        session,
        panel,
        text,
        sandbox=sandbox,
        targets={c.id for c in new},
        deadline=deadline,
        reach=reach,
        progress=progress,
        seeded=seeded,
    )
    out = Probing(
        witnesses=dict(search.result.witnesses),
        entries=[e.spec for e in search.entries],
        unprobed=unprobed,
        stopped=search.stopped,
    )
    programs = [p for p in programs_of(panel, session.cache) if p.id != BASELINE]
    if not search.entries or not programs:
        return out
    prober = prober_for(session.pool_for(panel, sandbox), panel)
    dictionary = program_literals(task.initial)
    calls = search.calls
    new_ids = {c.id for c in new}
    crashes: dict[str, list[bool]] = {pid: [] for pid in new_ids}
    signatures: dict[str, list] = {p.id: [] for p in programs}
    by_entry = calls_by_entry(calls)
    slowest_draw_s = 0.0
    for entry in [e for e in search.entries if e.spec in by_entry]:
        started = time.monotonic()
        if deadline is not None and started + slowest_draw_s > deadline:
            out.stopped = True
            break
        seeds = by_entry[entry.spec]
        # The same inputs the search drew (so the probe cache answers them): seeds, their
        # mutations, random inputs of their shape and Hypothesis examples; drawn again only for
        # an entry the search did not reach (it stops once every mutant is told apart).
        inputs = search.inputs.get(entry.spec)
        if inputs is None:
            inputs = entry_inputs(task, entry, seeds, dictionary)
            slowest_draw_s = max(slowest_draw_s, time.monotonic() - started)
        out.inputs += len(inputs)
        seen = prober.probe(programs, entry.target, [entry.literal(a) for a in inputs], deadline=deadline, focus=focus)
        if deadline is not None and time.monotonic() > deadline:
            out.stopped = True  # signatures of a cut probe would tell nothing apart
            break
        for pid, behaviours in seen.items():
            signatures[pid] += [(b.value, b.exception, b.mutated, b.error, b.protocol) for b in behaviours]
        own = {repr(s) for s in seeds}
        reference = seen[task.reference.id]
        for pid in new_ids & seen.keys():
            crashes[pid] += [
                seen[pid][i].exception is not None
                for i, a in enumerate(inputs)
                if repr(a) in own and reference[i].judged and reference[i].exception is None
            ]
    out.signatures = {pid: tuple(sig) for pid, sig in signatures.items()}
    out.crash_only = {pid for pid, flags in crashes.items() if flags and all(flags)}
    return out

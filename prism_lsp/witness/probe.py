"""The probe client: ask warm runners to call an entry point of several programs, cached.

One runner request per program (the runner forks once for the whole batch).
Results are cached by (tree digest, entry, call), so a second search on the
same panel sends only the calls it has not seen. A batch cut short (a call hung
past every limit, the program exited) is asked again from the call after the
one that was running; that one stays an error. Past a caller's deadline no request
is sent or run: those queued are cancelled, the one running is cut short at it,
and the calls left unanswered are `CUT` (never cached, so a later probe may ask).
"""

from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.materialize import ProgramTree
from prism_lsp.runner._prism_protocol import ProbeRequest
from prism_lsp.witness.protocol import known
from prism_lsp.witness.values import Behaviour

# Errors that are the batch's, not the call's: the call never ran to the end on its own terms.
_LOST = {"batch-timeout", "exited"}
# Only a program that died is asked again: one that hung past the batch limit ignored its call limits.
_RETRY = {"exited"}
CALL_TIMEOUT_S = 1.0
_RETRIES = 3
CUT = "deadline"  # a call left unanswered because the caller's deadline came
# A request sent just before the deadline still needs its fork and tree copy.
_MIN_REQUEST_S = 0.5


@dataclass(frozen=True)
class Program:
    """A program to probe: its id (candidate id or "initial"), whether it is valid, its tree."""

    id: str
    valid: bool
    tree: ProgramTree


class Prober:
    """Probes programs through a runner pool; thread-safe; results cached for the prober's life."""

    def __init__(
        self,
        pool: RunnerPool,
        *,
        memory_mb: int = 1024,
        call_timeout_s: float = CALL_TIMEOUT_S,
        batch_timeout_s: float = 10.0,
        pythonpath: tuple[str, ...] = (),
    ):
        self.pool = pool
        self.memory_mb = memory_mb
        self.pythonpath = pythonpath  # the task's import roots (a `src/` layout)
        self._ids = itertools.count(1)
        self.call_timeout_s = call_timeout_s
        self.batch_timeout_s = batch_timeout_s
        self._cache: dict[tuple[str, str, str, tuple[str, ...]], Behaviour] = {}
        self._lock = threading.Lock()
        self.requests = 0  # runner requests sent (for tests and the benchmark)
        self.skipped = 0  # requests not run (or cut short) because the caller's deadline came
        self._answered: dict[str, int] = {}  # tree digest -> calls its runners answered

    def answered(self, digest: str) -> int:
        """How many calls the runners answered for the tree `digest` (errors of a call included)."""
        with self._lock:
            return self._answered.get(digest, 0)

    def probe(
        self,
        programs: list[Program],
        entry: str,
        calls: list[str],
        *,
        deadline: float | None = None,
        focus: tuple[str, ...] = (),
    ) -> dict[str, list[Behaviour]]:
        """Behaviour of every program on every call (`calls` are argument-tuple literals). Past
        `deadline` (`time.monotonic()`) nothing more is asked: unanswered calls are `CUT`. `focus`:
        the protocol methods a result's observation exercises first (see `witness.protocol`); the
        order can change what an object that its own ops consume shows, so it is part of the key."""
        wanted = {p.id: p for p in programs}
        cancel = threading.Event()
        timer = None
        if deadline is not None:
            timer = threading.Timer(max(0.0, deadline - time.monotonic()), cancel.set)
            timer.daemon = True
            timer.start()
        try:
            pending: dict[str, tuple[Program, list[int], Future | None]] = {}
            for p in wanted.values():
                missing = self._missing(p, entry, calls, focus)
                if missing:
                    pending[p.id] = (
                        p,
                        missing,
                        self._submit(p, entry, [calls[i] for i in missing], deadline, cancel, focus),
                    )
            for _ in range(_RETRIES + 1):
                again: dict[str, tuple[Program, list[int], Future | None]] = {}
                for pid, (p, idx, fut) in pending.items():
                    if fut is None:
                        continue
                    cut = deadline is not None and cancel.is_set()
                    rest = self._store(p, entry, calls, idx, fut.result(), cut=cut, focus=focus)
                    if rest and not cancel.is_set():
                        again[pid] = (
                            p,
                            rest,
                            self._submit(p, entry, [calls[i] for i in rest], deadline, cancel, focus),
                        )
                pending = again
                if not pending:
                    break
            for _, (_, _, fut) in pending.items():  # out of retries: what is left stays unjudged
                if fut is not None:
                    fut.result()
        finally:
            if timer is not None:
                timer.cancel()
        lost = Behaviour(error=CUT if cancel.is_set() else "exited")
        with self._lock:
            return {
                pid: [self._cache.get((p.tree.digest, entry, c, focus), lost) for c in calls]
                for pid, p in wanted.items()
            }

    def _missing(self, p: Program, entry: str, calls: list[str], focus: tuple[str, ...]) -> list[int]:
        with self._lock:
            return [i for i, c in enumerate(calls) if (p.tree.digest, entry, c, focus) not in self._cache]

    def _submit(
        self,
        p: Program,
        entry: str,
        calls: list[str],
        deadline: float | None,
        cancel: threading.Event,
        focus: tuple[str, ...],
    ) -> Future | None:
        budget = min(self.batch_timeout_s, 2.0 + self.call_timeout_s * len(calls))  # hundreds of calls take ~0.1 s
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                self.skipped += 1
                return None
            budget = min(budget, max(left, _MIN_REQUEST_S))  # the runner cuts the batch at the deadline
        self.requests += 1
        # The id is opaque to the runner, as a suite run's is: never the candidate's name.
        return self.pool.submit(
            ProbeRequest(
                id=f"probe-{next(self._ids)}",
                tree=str(p.tree.path),
                entry=entry,
                calls=calls,
                call_timeout_s=self.call_timeout_s,
                timeout_s=budget,
                memory_mb=self.memory_mb,
                pythonpath=list(self.pythonpath),
                focus=list(focus),
            ),
            cancel=cancel,  # still queued at the deadline: never run
            until=deadline,  # started just before it: cut there, not `budget` after it started
        )

    def _store(
        self,
        p: Program,
        entry: str,
        calls: list[str],
        idx: list[int],
        answer,
        cut: bool = False,
        focus: tuple[str, ...] = (),
    ) -> list[int]:
        """Cache what the runner answered (a `ProbeResult`, or an error `Result` when the probe could
        not run); return the indexes worth asking again. When the deadline `cut` the request short,
        a call it lost is the deadline's doing: not cached."""
        result = answer.to_dict()
        if result.get("reason") == "cancelled":
            with self._lock:
                self.skipped += 1
            return []
        rows = result.get("calls") if isinstance(result.get("calls"), list) else []
        if result.get("reason") == "entry" or len(rows) != len(idx):
            # The entry point cannot be loaded (or the runner failed): every call is an error.
            reason = "entry" if result.get("reason") == "entry" else str(result.get("reason") or "runner")
            rows = [{"error": reason}] * len(idx)
        retry: list[int] = []
        first_lost = True
        with self._lock:
            for i, row in zip(idx, rows):
                row = row if isinstance(row, dict) else {"error": "protocol"}
                b = Behaviour(
                    value=_text(row.get("value")),
                    type=_text(row.get("type")),
                    exception=_text(row.get("exception")),
                    mutated=row.get("mutated") is True,
                    error=_text(row.get("error")),
                    protocol=_protocol(row.get("protocol")),
                )
                if b.error in _LOST:
                    if cut:
                        continue
                    if first_lost:  # the call that was running when the batch died: its own fault
                        first_lost = False
                        self._cache[(p.tree.digest, entry, calls[i], focus)] = Behaviour(error=b.error)
                    elif b.error in _RETRY:
                        retry.append(i)
                    continue  # not cached: a later search may ask again
                self._cache[(p.tree.digest, entry, calls[i], focus)] = b
                self._answered[p.tree.digest] = self._answered.get(p.tree.digest, 0) + 1
            if cut and any(isinstance(r, dict) and r.get("error") in _LOST for r in rows):
                self.skipped += 1
        return retry


def _text(v: object) -> str | None:
    return v if isinstance(v, str) else None


def _protocol(rows: object) -> tuple[tuple[str, Behaviour], ...]:
    """The observations of a result's protocol the host can write as tests (see `witness.protocol`)."""
    if not isinstance(rows, list):
        return ()
    out = []
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("op"), str) and known(row["op"]):
            b = Behaviour(
                value=_text(row.get("value")), exception=_text(row.get("exception")), error=_text(row.get("error"))
            )
            out.append((row["op"], b))
    return tuple(dict(out).items())  # an op reported twice counts once (its last report)

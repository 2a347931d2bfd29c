"""The probe client: ask warm runners to call an entry point of several programs, cached.

One runner request per program (the runner forks once for the whole batch).
Results are cached by (tree digest, entry, call), so a second search on the
same panel sends only the calls it has not seen. A batch cut short (a call hung
past every limit, the program exited) is asked again from the call after the
one that was running; that one stays an error.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import Future
from dataclasses import dataclass

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.materialize import ProgramTree
from prism_lsp.runner._prism_protocol import ProbeRequest
from prism_lsp.witness.values import Behaviour

# Errors that are the batch's, not the call's: the call never ran to the end on its own terms.
_LOST = {"batch-timeout", "exited"}
# Only a program that died is asked again: one that hung past the batch limit ignored its call limits.
_RETRY = {"exited"}
CALL_TIMEOUT_S = 1.0
_RETRIES = 3


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
        self._cache: dict[tuple[str, str, str], Behaviour] = {}
        self._lock = threading.Lock()
        self.requests = 0  # runner requests sent (for tests and the benchmark)

    def probe(self, programs: list[Program], entry: str, calls: list[str]) -> dict[str, list[Behaviour]]:
        """Behaviour of every program on every call (`calls` are argument-tuple literals)."""
        wanted = {p.id: p for p in programs}
        pending: dict[str, tuple[Program, list[int], Future]] = {}
        for p in wanted.values():
            missing = self._missing(p, entry, calls)
            if missing:
                pending[p.id] = (p, missing, self._submit(p, entry, [calls[i] for i in missing]))
        for _ in range(_RETRIES + 1):
            again: dict[str, tuple[Program, list[int], Future]] = {}
            for pid, (p, idx, fut) in pending.items():
                rest = self._store(p, entry, calls, idx, fut.result())
                if rest:
                    again[pid] = (p, rest, self._submit(p, entry, [calls[i] for i in rest]))
            pending = again
            if not pending:
                break
        for _, (_, _, fut) in pending.items():  # out of retries: what is left stays unjudged
            fut.result()
        with self._lock:
            return {
                pid: [self._cache.get((p.tree.digest, entry, c), Behaviour(error="exited")) for c in calls]
                for pid, p in wanted.items()
            }

    def _missing(self, p: Program, entry: str, calls: list[str]) -> list[int]:
        with self._lock:
            return [i for i, c in enumerate(calls) if (p.tree.digest, entry, c) not in self._cache]

    def _submit(self, p: Program, entry: str, calls: list[str]) -> Future:
        self.requests += 1
        budget = min(self.batch_timeout_s, 2.0 + self.call_timeout_s * len(calls))  # hundreds of calls take ~0.1 s
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
            )
        )

    def _store(self, p: Program, entry: str, calls: list[str], idx: list[int], answer) -> list[int]:
        """Cache what the runner answered (a `ProbeResult`, or an error `Result` when the probe could
        not run); return the indexes worth asking again."""
        result = answer.to_dict()
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
                )
                if b.error in _LOST:
                    if first_lost:  # the call that was running when the batch died: its own fault
                        first_lost = False
                        self._cache[(p.tree.digest, entry, calls[i])] = Behaviour(error=b.error)
                    elif b.error in _RETRY:
                        retry.append(i)
                    continue  # not cached: a later search may ask again
                self._cache[(p.tree.digest, entry, calls[i])] = b
        return retry


def _text(v: object) -> str | None:
    return v if isinstance(v, str) else None

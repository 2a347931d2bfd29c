"""Per-test result cache: (program tree digest, test key) -> that test's results, in memory and on disk.

A test key hashes the test's own text together with the suite's shared code (imports, fixtures,
helpers) and the run's context (`scheduler.run_context`: where the suite runs, the limits, the
runner, the interpreter, the backend...). One suite-level test may yield several pytest results
(parametrized ids), so an entry is a tuple of `TestResult`s.

In memory: a bounded LRU of every result this process saw. On disk (`disk`, a
`scheduler.result_store.DiskStore` under `<cache>/results/`): the definite ones (pass, fail),
one bundle per (program, context), so another process -- a second `prism run`, a restarted
editor, `prism gate` in a CI job with a cached folder -- reruns only what changed.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING

from prism_lsp.model.outcome import TestResult

if TYPE_CHECKING:
    from prism_lsp.scheduler.result_store import DiskStore

log = logging.getLogger(__name__)

CacheKey = tuple[str, str]
_MAX_SYNCED = 1024  # bundles remembered as read; past it, each is read once more
WRITE_DELAY_S = 1.0  # bundles are written this long after the last save (`flush` does not wait for it)


def test_key(body_hash: str, shared_hash: str, *context: object) -> str:
    """The key of one test's text in its context (shared code, suite path, limits...)."""
    parts = "\0".join([body_hash, shared_hash, *map(repr, context)])
    return hashlib.sha256(parts.encode()).hexdigest()


test_key.__test__ = False  # type: ignore[attr-defined]


class ResultCache:
    """A bounded, thread-safe LRU map from (tree digest, test key) to test results, over an optional `disk`."""

    def __init__(self, max_entries: int = 20_000, disk: DiskStore | None = None, *, write_behind: bool = False) -> None:
        self._entries: OrderedDict[CacheKey, tuple[TestResult, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries
        self.disk = disk
        self.hits = 0
        self.misses = 0
        # (digest, context) -> the disk bundle's stamp when memory last matched it (read or written):
        # a one-test edit misses one key, and re-reading every program's bundle for it cost 0.8 s
        # on a 589-test module. Skipping a read can only rerun a test, never change a result.
        self._synced: dict[tuple[str, str], tuple[int, int]] = {}
        # (digest, key) -> (a first line, the entry's results with lines at it): a test that did not
        # move gets back the very objects it got last time, so a one-test edit of a 589-test module
        # neither rebuilds 4,000 results per lookup and save nor the report's views of them.
        self._placed: dict[CacheKey, tuple[int, tuple[TestResult, ...]]] = {}
        # `write_behind`: `save` hands bundles to one writer thread (the editor's run publishes without
        # waiting for 7 bundles written, 50-70 ms an edit on a 589-test module); `flush` waits for them.
        self.write_behind = write_behind
        self._pending: dict[tuple[str, str], tuple[dict, dict[str, int]]] = {}
        self._writes = threading.Condition()
        self._writing = 0
        self._flushing = 0  # callers of `flush` waiting: the writer does not wait for a pause then
        self._last_save = 0.0
        self._writer: threading.Thread | None = None

    def get(self, digest: str, key: str) -> tuple[TestResult, ...] | None:
        with self._lock:
            found = self._entries.get((digest, key))
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end((digest, key))
            self.hits += 1
            return found

    def get_at(self, digest: str, key: str, start: int) -> tuple[TestResult, ...] | None:
        """`get`'s results with their lines moved to a test starting on line `start`."""
        found = self.get(digest, key)
        if found is None:
            return None
        return self._at(digest, key, found, start)

    def _at(self, digest: str, key: str, found: tuple[TestResult, ...], start: int) -> tuple[TestResult, ...]:
        with self._lock:
            placed = self._placed.get((digest, key))
            current = self._entries.get((digest, key)) is found
        if placed is not None and placed[0] == start and current:
            return placed[1]
        moved = tuple(shift_lines(t, start) for t in found)
        with self._lock:
            if self._entries.get((digest, key)) is found:
                self._placed[(digest, key)] = (start, moved)
        return moved

    def put(self, digest: str, key: str, results: tuple[TestResult, ...]) -> None:
        with self._lock:
            self._entries[(digest, key)] = results
            self._entries.move_to_end((digest, key))
            self._placed.pop((digest, key), None)
            while len(self._entries) > self.max_entries:
                old, _ = self._entries.popitem(last=False)
                self._placed.pop(old, None)
                self._synced.clear()  # memory no longer holds every bundle it read

    def load(self, digest: str, context: str) -> None:
        """Bring the disk's results of (digest, context) into memory (nothing without a disk)."""
        if self.disk is None:
            return
        stamp = self.disk.stamp(digest, context)
        if stamp is None or self._synced.get((digest, context)) == stamp:
            return
        for key, (start, results) in self.disk.get(digest, context).items():
            self.put(digest, key, tuple(shift_lines(t, -start) for t in results))
        with self._lock:
            if len(self._synced) >= _MAX_SYNCED:
                self._synced.clear()
            self._synced[(digest, context)] = stamp

    def save(self, digest: str, context: str, starts: dict[str, int]) -> None:
        """Write the results memory holds on `digest` for the keys of `starts` (key -> the test's first
        line now) to disk, as (digest, context)'s bundle, with the suite's lines as they are now."""
        if self.disk is None:
            return
        with self._lock:
            held = {k: self._entries[(digest, k)] for k in starts if (digest, k) in self._entries}
        if not self.write_behind:
            self._write(digest, context, self._records(digest, held, starts))
            return
        with self._writes:
            # A newer bundle of the same program replaces it; the records are made by the writer.
            self._pending[(digest, context)] = (held, dict(starts))
            self._last_save = time.monotonic()
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_pending, name="prism-results", daemon=True)
                self._writer.start()
                atexit.register(self.flush)
            self._writes.notify_all()

    def _records(self, digest: str, held: dict[str, tuple[TestResult, ...]], starts: dict[str, int]) -> dict:
        return {k: (starts[k], self._at(digest, k, found, starts[k])) for k, found in held.items()}

    def _write(self, digest: str, context: str, records: dict) -> None:
        assert self.disk is not None
        self.disk.put(digest, context, records)
        stamp = self.disk.stamp(digest, context)
        with self._lock:
            if stamp is not None:
                self._synced[(digest, context)] = stamp

    def _write_pending(self) -> None:
        while True:
            with self._writes:
                while True:
                    # Written once saves pause (or someone waits for them): while the author types, each
                    # edit's bundles replace the last's, and none is written beside an edit's run.
                    quiet = self._last_save + WRITE_DELAY_S - time.monotonic()
                    if self._pending and (quiet <= 0 or self._flushing):
                        break
                    self._writes.wait(quiet if self._pending else None)
                (digest, context), (held, starts) = self._pending.popitem()
                self._writing += 1
            try:
                self._write(digest, context, self._records(digest, held, starts))
            except Exception as exc:  # a bundle not written only costs a rerun later
                log.info("result cache: writing a bundle failed: %r", exc)
            finally:
                with self._writes:
                    self._writing -= 1
                    self._writes.notify_all()

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until every bundle `save` was given is on disk (False when `timeout` passed first)."""
        deadline = time.monotonic() + timeout
        with self._writes:
            self._flushing += 1
            self._writes.notify_all()
            try:
                while self._pending or self._writing:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._writes.wait(left)
            finally:
                self._flushing -= 1
        return True

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._synced.clear()
            self._placed.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def shift_lines(t: TestResult, delta: int) -> TestResult:
    """`t` with every suite line moved by `delta` (memory keeps lines relative to the test's first
    line, so a test that moved, unchanged, is still found)."""

    def move(line: int | None) -> int | None:
        return None if line is None else line + delta

    return replace(
        t,
        line=move(t.line),
        def_line=move(t.def_line),
        assertions=tuple(replace(a, line=a.line + delta) for a in t.assertions),
    )

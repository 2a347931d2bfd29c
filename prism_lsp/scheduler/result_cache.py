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

import hashlib
import threading
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING

from prism_lsp.model.outcome import TestResult

if TYPE_CHECKING:
    from prism_lsp.scheduler.result_store import DiskStore

CacheKey = tuple[str, str]
_MAX_SYNCED = 1024  # bundles remembered as read; past it, each is read once more


def test_key(body_hash: str, shared_hash: str, *context: object) -> str:
    """The key of one test's text in its context (shared code, suite path, limits...)."""
    parts = "\0".join([body_hash, shared_hash, *map(repr, context)])
    return hashlib.sha256(parts.encode()).hexdigest()


test_key.__test__ = False  # type: ignore[attr-defined]


class ResultCache:
    """A bounded, thread-safe LRU map from (tree digest, test key) to test results, over an optional `disk`."""

    def __init__(self, max_entries: int = 20_000, disk: DiskStore | None = None) -> None:
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

    def get(self, digest: str, key: str) -> tuple[TestResult, ...] | None:
        with self._lock:
            found = self._entries.get((digest, key))
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end((digest, key))
            self.hits += 1
            return found

    def put(self, digest: str, key: str, results: tuple[TestResult, ...]) -> None:
        with self._lock:
            self._entries[(digest, key)] = results
            self._entries.move_to_end((digest, key))
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
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
            records = {
                k: (start, tuple(shift_lines(t, start) for t in self._entries[(digest, k)]))
                for k, start in starts.items()
                if (digest, k) in self._entries
            }
        self.disk.put(digest, context, records)
        stamp = self.disk.stamp(digest, context)
        with self._lock:
            if stamp is not None:
                self._synced[(digest, context)] = stamp

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._synced.clear()

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

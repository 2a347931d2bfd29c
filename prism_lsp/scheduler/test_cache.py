"""Per-test result cache: (program tree digest, test key) -> that test's results.

A test key hashes the test's own text together with the suite's shared code
(imports, fixtures, helpers) and whatever else changes a test's meaning (where the
suite runs, the time limit). One suite-level test may yield several pytest results
(parametrized ids), so an entry is a tuple of `TestResult`s.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from prism_lsp.model.outcome import TestResult

CacheKey = tuple[str, str]


def test_key(body_hash: str, shared_hash: str, *context: object) -> str:
    """The key of one test's text in its context (shared code, suite path, limits...)."""
    parts = "\0".join([body_hash, shared_hash, *map(repr, context)])
    return hashlib.sha256(parts.encode()).hexdigest()


test_key.__test__ = False  # type: ignore[attr-defined]


class TestResultCache:
    """A bounded, thread-safe LRU map from (tree digest, test key) to test results."""

    __test__ = False

    def __init__(self, max_entries: int = 20_000) -> None:
        self._entries: OrderedDict[CacheKey, tuple[TestResult, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0

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

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

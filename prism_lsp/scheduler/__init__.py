"""Scheduler: debounce edits, cancel stale runs, rerun only the tests that changed.

Pure of LSP: :class:`Scheduler` decides *when* a document is checked and whether a
result may still be published; :class:`IncrementalRunner` decides *what* must run,
reusing per-test results cached by (program tree digest, test hash).
"""

from prism_lsp.scheduler.cache import TestResultCache, test_key
from prism_lsp.scheduler.incremental import IncrementalRunner, PanelEngine, RunStats
from prism_lsp.scheduler.scheduler import Job, Scheduler

__all__ = ["IncrementalRunner", "Job", "PanelEngine", "RunStats", "Scheduler", "TestResultCache", "test_key"]

"""Scheduler: debounce edits, cancel stale runs, rerun only the tests that changed.

Pure of LSP: :class:`Scheduler` decides *when* a document is checked and whether a
result may still be published; :class:`IncrementalScheduler` decides *what* must run,
reusing per-test results cached by (program tree digest, test hash).
"""

from prism_lsp.scheduler.incremental import IncrementalScheduler, PanelEngine, RunStats, SessionEngine
from prism_lsp.scheduler.scheduler import Job, Scheduler
from prism_lsp.scheduler.test_cache import TestResultCache, test_key

__all__ = [
    "IncrementalScheduler",
    "Job",
    "PanelEngine",
    "RunStats",
    "Scheduler",
    "SessionEngine",
    "TestResultCache",
    "test_key",
]

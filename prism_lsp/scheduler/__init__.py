"""Scheduler: debounce edits, cancel stale runs, rerun only the tests that changed.

Pure of LSP: :class:`Scheduler` decides *when* a document is checked and whether a
result may still be published; :class:`IncrementalRunner` decides *what* must run,
reusing per-test results cached by (program tree digest, test hash), in memory and on disk
(:mod:`prism_lsp.scheduler.result_store`); :class:`CachedSession` is an engine session
whose runs do the same (`prism run`, `prism gate`, `prism score`).
"""

from prism_lsp.scheduler.incremental import IncrementalRunner, PanelRunner, RunStats, SessionPanelRunner
from prism_lsp.scheduler.result_cache import ResultCache, test_key
from prism_lsp.scheduler.scheduler import Job, Scheduler

__all__ = [
    "IncrementalRunner",
    "Job",
    "PanelRunner",
    "RunStats",
    "Scheduler",
    "SessionPanelRunner",
    "ResultCache",
    "test_key",
]

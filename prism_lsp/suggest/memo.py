"""Suggestions remembered per suite text, for callers that ask again (the editor's code actions).

A suggestion costs panel runs, so the server computes it once per (task, suite text, reveal)
on the first code action request, and the next requests on that text are answered at once.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.reveal import WITNESSES_SHOWN_AT as SHOWN_AT
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task
from prism_lsp.suggest.build import Suggestion, suggest


class SuggestionMemo:
    """Thread-safe; keeps the `size` most recent suite texts."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self._known: OrderedDict[tuple, list[Suggestion]] = OrderedDict()
        self._lock = threading.Lock()
        self._busy: dict[tuple, threading.Lock] = {}

    def get(
        self, session: EngineSession, task: Task, suite: Suite, run: PanelRun, options: RunOptions, reveal: str
    ) -> list[Suggestion]:
        """The verified suggestions for this run of `suite` (none below `labels`)."""
        if reveal not in SHOWN_AT:
            return []
        key = (task.id, str(task.root), suite.rel_path, hashlib.sha256(suite.text.encode()).hexdigest(), options)
        with self._lock:
            if key in self._known:
                self._known.move_to_end(key)
                return self._known[key]
            busy = self._busy.setdefault(key, threading.Lock())
        with busy:  # two requests for the same text compute it once
            with self._lock:
                if key in self._known:
                    return self._known[key]
            found = suggest(session, task, suite, run, options)
            with self._lock:
                self._known[key] = found
                self._busy.pop(key, None)
                while len(self._known) > self.size:
                    self._known.popitem(last=False)
            return found

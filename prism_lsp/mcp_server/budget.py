"""The operator's run budget per task (`prism mcp --budget N`), kept across restarts of the server.

Each run an agent asks for (a `run_suite`, a `list_suggestions` that runs the panel) spends one
run of the task's budget before anything runs, so a run that crashes still counts. The count
lives in Prism's cache folder, in a file named by the task's digest: its id and its panel
(each candidate's id, label and source), never the suites, so nothing an agent sends makes a
fresh budget. Concurrent calls (and servers) share the file under a lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from pathlib import Path

from prism_lsp.materialize.digest import file_digest, tree_digest
from prism_lsp.model.task import Task


class BudgetSpent(Exception):
    """The task's budget has no run left (or its count cannot be read); the message says which."""


def task_digest(task: Task) -> str:
    """sha256 of what makes a task's panel: its id and every candidate (id, label, source digest)."""
    h = hashlib.sha256(task.id.encode())
    for c in task.candidates:
        source = file_digest(c.source) if c.kind == "patch" else tree_digest(c.source)
        h.update(f"\0{c.id}\0{c.label}\0{source}".encode())
    return h.hexdigest()


class RunBudget:
    """At most `limit` runs per task, counted in `folder` (one JSON file per task digest)."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.folder = folder
        self.limit = limit

    def _path(self, task: Task) -> Path:
        return self.folder / f"{task_digest(task)}.json"

    def spend(self, task: Task) -> int:
        """Spend one run of `task`'s budget; the runs left after it. `BudgetSpent` when none is left."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self._path(task)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            used = _used(f.read(), path)
            if used >= self.limit:
                raise BudgetSpent(f"task {task.id}: its run budget ({self.limit} runs) is spent")
            f.seek(0)
            f.truncate()
            f.write(json.dumps({"task": task.id, "runs": used + 1}))
            f.flush()
            os.fsync(f.fileno())
        return self.limit - used - 1

    def left(self, task: Task) -> int:
        """Runs left for `task` (without spending one)."""
        path = self._path(task)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return self.limit
        try:
            return max(0, self.limit - _used(text, path))
        except BudgetSpent:
            return 0


def _used(text: str, path: Path) -> int:
    """The runs recorded in a budget file's text (0 for a new, empty file)."""
    if not text:
        return 0
    try:
        runs = json.loads(text)["runs"]
    except (ValueError, KeyError, TypeError):
        runs = None
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 0:
        # Fail closed: a count that cannot be read is no reason for a fresh budget.
        raise BudgetSpent(
            f'the run count in {path} cannot be read (expected {{"runs": N}}); '
            "no run is allowed until the operator removes the file"
        )
    return runs

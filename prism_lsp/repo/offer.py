"""The editor's offer: "Prism: create a task from this fix", for a test file with no task.

Offered for a file pytest would collect (the `python_files` of the configuration nearest it) in a git
repository with no `prism.toml` above the file; the message (with its button, `ACTION`) is offered
once per file, and not again once the task exists; the code lens stays while no task exists. Accepting runs `prism init` on the working tree (the
fix against `HEAD`). Knows nothing of LSP: the server shows what this decides.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.repo.errors import InitError
from prism_lsp.repo.init import InitResult, init_task
from prism_lsp.tasks.native import find_task_root
from prism_lsp.tasks.pytest_config import nearest_config
from prism_lsp.tasks.suites import matches

TITLE = "Prism: create a task from this fix"
ACTION = "Create Task"  # the message's button: does what the code lens does
MESSAGE = (
    "Prism: no task for this test file yet. \u201cCreate Task\u201d (or the code lens \u201cPrism: create a "
    "task from this fix\u201d) makes one from the fix in this git repository (the working tree against HEAD; "
    "nothing of the repository is changed) and judges the file against it."
)


@dataclass(frozen=True)
class Offer:
    repo_root: Path
    path: Path


def _repo_root(folder: Path) -> Path | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(proc.stdout.decode().strip()) if proc.returncode == 0 else None


class InitOffers:
    """Which files get the offer, and which were already told about it."""

    def __init__(self) -> None:
        self._told: set[Path] = set()
        self._declined: set[Path] = set()  # repositories whose offer was dismissed
        # Repositories with a message out, not answered yet: one at a time (a second file opened
        # meanwhile would have raced the answer, and been told again after a dismissal).
        self._asking: set[Path] = set()
        self._roots: dict[Path, Path | None] = {}  # folder -> its repository (asked of git once)
        self._lock = threading.Lock()
        self._making = threading.Lock()  # one `prism init` at a time (a double click is not two tasks)

    def _root(self, folder: Path) -> Path | None:
        with self._lock:
            if folder in self._roots:
                return self._roots[folder]
        root = _repo_root(folder)
        with self._lock:
            self._roots[folder] = root
        return root

    def offer(self, path: Path | None) -> Offer | None:
        """The offer for `path` when it applies now (no task, a test file in a git repository)."""
        if path is None or not path.is_file() or find_task_root(path) is not None:
            return None
        root = self._root(path.parent)
        if root is None or not path.resolve().is_relative_to(root.resolve()):
            return None
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        if not matches(path, nearest_config(root, rel).python_files):
            return None
        return Offer(root, path.resolve())

    def first_time(self, offer: Offer) -> bool:
        """True once per file, and never again in a repository whose offer was dismissed, nor while
        that repository's message is out (`answered` ends that): whether to show the message now."""
        with self._lock:
            if offer.path in self._told or offer.repo_root in self._declined or offer.repo_root in self._asking:
                return False
            self._told.add(offer.path)
            self._asking.add(offer.repo_root)
            return True

    def answered(self, offer: Offer) -> None:
        """The message of `offer`'s repository was answered (or could not be shown): another may follow."""
        with self._lock:
            self._asking.discard(offer.repo_root)

    def decline(self, offer: Offer) -> None:
        """The message was dismissed: not shown again for the other test files of that repository."""
        with self._lock:
            self._declined.add(offer.repo_root)

    def accept(self, path: Path) -> InitResult:
        """Make the task (`InitError` when it cannot be made); the offer no longer applies after."""
        with self._making:
            offer = self.offer(path)
            if offer is None:
                raise InitError(f"{path}: no offer here (a task exists, or it is not a test file in a git repository)")
            return init_task(offer.repo_root)

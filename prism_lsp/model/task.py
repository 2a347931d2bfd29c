"""A loaded task: its statement, initial state and panel, with absolute paths."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class Candidate:
    """One implementation of the task, as declared by the manifest."""

    id: str
    label: Literal["valid", "invalid"]
    reference: bool
    kind: Literal["patch", "overlay"]
    source: Path
    note: str = ""
    sha256: str | None = None
    origin: Literal["hand", "mutant", "sample"] = "hand"

    @property
    def valid(self) -> bool:
        return self.label == "valid"


@dataclass(frozen=True)
class Task:
    """A task folder turned into data. `initial` is the initial program state."""

    id: str
    root: Path
    manifest: Path
    initial: Path
    candidates: tuple[Candidate, ...]
    statement: str = ""
    timeout_s: float = 10.0
    memory_mb: int = 1024
    pids_max: int = 256
    sandbox: str = "auto"
    image: str | None = None
    dockerfile: Path | None = None
    python: str | None = None
    reveal: str = "full"
    # A non-pytest task (e.g. Terminal-Bench) judges with its own command's exit status.
    test_command: str | None = None
    # Tree-relative folders the runner puts first on `sys.path` (a `src/` layout's import root).
    pythonpath: tuple[str, ...] = ()
    # The trusted suite that decides validity (`[verifier] suite`), absolute; None when absent.
    verifier: Path | None = None
    # Entry points `module:function` declared by the manifest (empty: inferred from the suite).
    entry: tuple[str, ...] = ()

    @property
    def reference(self) -> Candidate:
        return next(c for c in self.candidates if c.reference)

    @property
    def verifier_rel(self) -> str:
        """The verifier's path as the author wrote it (relative to the task folder)."""
        return self.verifier.relative_to(self.root).as_posix() if self.verifier else ""

    def candidate(self, candidate_id: str) -> Candidate | None:
        return next((c for c in self.candidates if c.id == candidate_id), None)

    def suite_rel(self, suite: Path) -> str:
        """The path a suite runs at inside every program tree.

        A suite under `initial/` keeps its path relative to `initial`; any other
        suite under the task root keeps its path relative to the task root.
        """
        suite = suite.resolve()
        for base in (self.initial.resolve(), self.root.resolve()):
            try:
                return suite.relative_to(base).as_posix()
            except ValueError:
                continue
        return suite.name

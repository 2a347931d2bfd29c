"""The checked document: one version of a buffer as Prism sees it, and where its check stands.

A :class:`Check` holds what every feature (diagnostics, lenses, hover, status) needs about
one version: its suite map, ignores and static findings, the task it belongs to, and, once
the panel ran, the run and its report. Its :class:`CheckState` says in one place how far
the check got, so nothing has to decode that from which fields happen to be set.
Pure: no LSP.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from prism_lsp.analysis.ignores import Ignores
from prism_lsp.analysis.suite_map import SuiteMap
from prism_lsp.analysis.weak_assertions import StaticFinding
from prism_lsp.judge.report import judge_run
from prism_lsp.model.report import PanelReport
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task
from prism_lsp.scheduler import RunStats

StateKind = Literal["no-task", "not-run", "running", "finished", "failed"]


@dataclass(frozen=True)
class CheckState:
    """How far the check of one version got.

    - `no-task`: no prism.toml above the file (static hints only);
    - `not-run`: the panel does not run on this version; `reason` says why (a phrase for
      "not run: ...": a syntax error, no tests yet, a program file of the task);
    - `running`: the panel runs (or, on save, will run) on this version;
    - `finished`: the panel ran; the check holds the run and its report;
    - `failed`: the manifest could not be loaded or the panel could not run; `reason` says why.
    """

    kind: StateKind
    reason: str | None = None


NO_TASK = CheckState("no-task")
RUNNING = CheckState("running")


@dataclass(frozen=True)
class Check:
    """One version of one document, as Prism sees it."""

    path: Path | None
    version: int
    text: str
    suite_map: SuiteMap
    ignores: Ignores
    static: list[StaticFinding]
    state: CheckState
    task: Task | None = None
    reveal: str = "full"
    is_suite: bool = True  # False: a program file or other non-test file of a task (static hints only)
    run: PanelRun | None = None
    report: PanelReport | None = None
    stats: RunStats | None = None

    @property
    def runnable(self) -> bool:
        """Whether the panel runs on this version (the analysis said `running`)."""
        return self.state.kind == "running"


def finished(base: Check, run: PanelRun, stats: RunStats | None = None, *, sandbox: str | None = None) -> Check:
    """`base` (a runnable analysis) with the panel's `run` and the report built from it."""
    assert base.task is not None and base.path is not None, "only a suite of a task runs"
    suite = Suite(base.task.suite_rel(base.path), base.text)
    # The report from the raw run (judge_run redacts it, once, after counting what only the raw run
    # holds: the reference's coverage) and the redacted run: what hover, lenses and status may see.
    run, report = judge_run(base.task, suite, run, reveal=base.reveal, sandbox=sandbox or base.task.sandbox)
    return replace(base, state=CheckState("finished"), run=run, report=report, stats=stats)


def failed(base: Check, reason: str) -> Check:
    """`base` when the panel could not run (no sandbox...): `reason` is for the user."""
    return replace(base, state=CheckState("failed", reason))

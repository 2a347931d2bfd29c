"""The core the server wraps: check one document version, with or without running the panel.

No LSP here. A :class:`Check` is everything later features (diagnostics, lenses,
hover, status) need about one version of a buffer: its suite map, static findings,
the task it belongs to, and the panel run and report when one ran.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.analysis.ignores import Ignores, ignored_kinds
from prism_lsp.analysis.suite_map import SuiteMap, parse_suite
from prism_lsp.analysis.weak_assertions import StaticFinding, static_findings
from prism_lsp.engine.panel import BASELINE, PanelRun, Progress, Suite, build_report
from prism_lsp.engine.redact import redact_run
from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.materialize import MaterializeError, ProgramTree
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.report import PanelReport
from prism_lsp.model.task import Task
from prism_lsp.sandbox import SandboxUnavailable
from prism_lsp.scheduler import IncrementalRunner, RunStats
from prism_lsp.server.settings import Settings
from prism_lsp.tasks import find_task_root, load_task
from prism_lsp.tasks.suites import not_a_suite

log = logging.getLogger(__name__)

COLD_ENV = "PRISM_LSP_COLD"  # "1": no per-test cache and no warm runner (the benchmark's baseline)


@dataclass(frozen=True)
class Check:
    """One version of one document, as Prism sees it."""

    path: Path | None
    version: int
    text: str
    suite_map: SuiteMap
    ignores: Ignores
    static: list[StaticFinding]
    task: Task | None = None
    task_problem: str | None = None  # the manifest could not be loaded
    reveal: str = "full"
    run: PanelRun | None = None
    report: PanelReport | None = None
    error: str | None = None  # the panel could not run (sandbox...)
    stats: RunStats | None = None
    not_run: str | None = None  # why no run happened (syntax error, no tests...)
    is_suite: bool = True  # False: a program file or other non-test file of a task (static hints only)
    extra: dict = field(default_factory=dict)

    @property
    def has_results(self) -> bool:
        return self.run is not None and self.report is not None


class _SessionEngine:
    """The `PanelEngine` of the incremental runner over an `EngineSession`."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session

    def run(self, task: Task, suite: Suite, options: RunOptions, *, progress: Progress | None,
            cancel: threading.Event | None) -> PanelRun:
        return self.session.run(task, suite, options, progress=progress, cancel=cancel)

    def trees(self, task: Task) -> dict[str, ProgramTree | ProgramResult]:
        out: dict[str, ProgramTree | ProgramResult] = {}
        for pid, cand in [(BASELINE, None), *[(c.id, c) for c in task.candidates]]:
            try:
                out[pid] = self.session.cache.baseline(task) if cand is None else self.session.cache.candidate(task, cand)
            except (MaterializeError, OSError) as exc:
                out[pid] = ProgramResult.error("materialize", str(exc))
        return out


class _ColdEngine(_SessionEngine):
    """A new session (so new runners) for every run: what Prism costs without its warm pool."""

    def run(self, task: Task, suite: Suite, options: RunOptions, *, progress: Progress | None,
            cancel: threading.Event | None) -> PanelRun:
        with EngineSession(self.session.cache.root, self.session.workers) as cold:
            return cold.run(task, suite, options, progress=progress, cancel=cancel)


class Checker:
    """Finds tasks, analyses buffers and runs the panel; thread-safe; `close()` when done."""

    def __init__(self, cache_root: Path | None = None, *, cold: bool | None = None, workers: int | None = None):
        self.cold = os.environ.get(COLD_ENV) == "1" if cold is None else cold
        self.session = EngineSession(cache_root, workers)
        engine = _ColdEngine(self.session) if self.cold else _SessionEngine(self.session)
        self.runner = IncrementalRunner(engine, enabled=not self.cold)
        self._tasks: dict[Path, tuple[float, Task | str]] = {}
        self._lock = threading.Lock()

    def task_for(self, path: Path | None) -> tuple[Task | None, str | None]:
        """The task a file belongs to (nearest prism.toml), or the manifest's error message."""
        root = find_task_root(path) if path is not None else None
        if root is None:
            return None, None
        manifest = root / "prism.toml"
        mtime = manifest.stat().st_mtime if manifest.exists() else 0.0
        with self._lock:
            known = self._tasks.get(root)
        if known is None or known[0] != mtime:
            try:
                loaded: Task | str = load_task(root)
            except ManifestError as exc:
                loaded = str(exc)
            known = (mtime, loaded)
            with self._lock:
                self._tasks[root] = known
        return (known[1], None) if isinstance(known[1], Task) else (None, known[1])

    def analyze(self, path: Path | None, version: int, text: str, settings: Settings) -> Check:
        """Everything known without running: suite map, ignores, static hints, the task."""
        suite_map = parse_suite(text)
        task, problem = self.task_for(path)
        reveal = settings.effective_reveal(task.reveal) if task else settings.reveal
        check = Check(path, version, text, suite_map, ignored_kinds(text), static_findings(suite_map), task, problem,
                      reveal)
        if task is None or path is None:
            return check
        outside = not_a_suite(path, task)
        if outside is not None:
            return _replace(check, not_run=outside, is_suite=False)
        return _replace(check, not_run=why_not_run(check))

    def check(self, path: Path | None, version: int, text: str, settings: Settings, *,
              progress: Progress | None = None, cancel: threading.Event | None = None) -> Check:
        """Analyse, then run the panel when the buffer belongs to a task and can run."""
        return self.run_panel(self.analyze(path, version, text, settings), settings, progress=progress, cancel=cancel)

    def runnable(self, base: Check) -> bool:
        """Whether `run_panel` would run anything for this analysis (else `base.not_run` says why)."""
        return base.task is not None and base.path is not None and base.not_run is None

    def run_panel(self, base: Check, settings: Settings, *, progress: Progress | None = None,
                  cancel: threading.Event | None = None) -> Check:
        """The analysis `base` with the panel run on its text (unchanged when it cannot run)."""
        path = base.path
        if not self.runnable(base) or base.task is None or path is None:
            return base
        task = base.task
        suite = Suite(task.suite_rel(path), base.text)
        options = RunOptions(sandbox=None if settings.sandbox == "auto" else settings.sandbox,
                             timeout_s=settings.timeout_seconds, reveal=base.reveal)
        try:
            run, stats = self.runner.run(task, suite, base.suite_map, options, progress=progress, cancel=cancel)
        except SandboxUnavailable as exc:
            return _replace(base, error=str(exc))
        run = redact_run(run, base.reveal, base.text)  # what hover, lenses and status may see
        report = build_report(task, suite, run, reveal=base.reveal, sandbox=options.sandbox or task.sandbox)
        return _replace(base, run=run, report=report, stats=stats)

    def tree(self, task: Task, program: str) -> ProgramTree | None:
        """The materialized tree of one program (None when it cannot be built)."""
        cand = task.candidate(program)
        try:
            return self.session.cache.baseline(task) if cand is None else self.session.cache.candidate(task, cand)
        except (MaterializeError, OSError):
            return None

    def close(self) -> None:
        self.session.close()


def why_not_run(check: Check) -> str | None:
    """Why a suite of a task cannot be run as it is now (a phrase for "not run: ..."), or None.

    A test file without tests would only collect nothing, which pytest reports as an error on
    every program; a new file is not wrong, so say so instead."""
    if check.suite_map.problem:  # too large or nested too deeply: not even analysed
        return check.suite_map.problem
    if check.suite_map.syntax_errors:
        first = min(issue.span.start_line for issue in check.suite_map.syntax_errors)
        return f"the buffer has a syntax error (line {first})"
    if not check.suite_map.tests and (check.task is None or check.task.test_command is None):
        return "no tests yet"
    return None


def _replace(check: Check, **changes) -> Check:
    from dataclasses import replace

    return replace(check, **changes)

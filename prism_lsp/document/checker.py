"""Check one document version: analyse it, and run the panel on it when it is a runnable suite.

No LSP here. :meth:`Checker.analyze` is everything known without running (and decides
the :class:`~prism_lsp.document.check.CheckState`); :meth:`Checker.run_panel` runs the
panel through the incremental scheduler on a runnable analysis.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prism_lsp.analysis.ignores import ignored_kinds
from prism_lsp.analysis.limits import size_problem
from prism_lsp.analysis.suite_map import SuiteMap, parse_suite
from prism_lsp.analysis.weak_assertions import static_findings
from prism_lsp.document.check import NO_TASK, RUNNING, Check, CheckState, failed, finished
from prism_lsp.engine import suite_code
from prism_lsp.engine.panel import Progress
from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.reveal import WITNESSES_SHOWN_AT, panel_to_run
from prism_lsp.materialize import MaterializeError, ProgramTree
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.run import Suite
from prism_lsp.model.task import Task
from prism_lsp.sandbox import SandboxUnavailable
from prism_lsp.scheduler import IncrementalRunner, PanelRunner, SessionPanelRunner
from prism_lsp.scheduler.cached_session import open_results
from prism_lsp.tasks import find_task_root, load_task
from prism_lsp.tasks.suites import not_a_suite

if TYPE_CHECKING:  # the witness packages load on first use (server start: bench/server_start.py)
    from prism_lsp.witness.search import Witness

PanelRunnerFactory = Callable[[EngineSession], PanelRunner]


class Settings(Protocol):
    """The choices of whoever started Prism that a check reads (the server's settings object)."""

    @property
    def reveal(self) -> str: ...

    @property
    def sandbox(self) -> str: ...

    @property
    def timeout_seconds(self) -> float | None: ...

    def effective_reveal(self, task_reveal: str) -> str: ...


def requested_sandbox(settings: Settings) -> str | None:
    """The sandbox the settings name, or None for `auto` (the engine picks one per task)."""
    return None if settings.sandbox == "auto" else settings.sandbox


class Checker:
    """Finds tasks, analyses buffers and runs the panel; thread-safe; `close()` when done.

    `engine` adapts the session for the incremental scheduler (default: its warm runners);
    `reuse=False` keeps no per-test results (both are how a benchmark measures Prism without them).
    """

    def __init__(
        self,
        cache_root: Path | None = None,
        *,
        workers: int | None = None,
        engine: PanelRunnerFactory = SessionPanelRunner,
        reuse: bool = True,
    ):
        self.session = EngineSession(cache_root, workers)
        # Results kept on disk too (`<cache>/results/`): a restarted editor reruns only what changed.
        results, self.cache_note = open_results(self.session.cache.root, enabled=reuse, write_behind=True)
        self.incremental = IncrementalRunner(engine(self.session), results, enabled=reuse)
        self._tasks: dict[Path, tuple[float, Task | str]] = {}
        self._starting: dict[int, list[Future]] = {}  # pool id -> its runners' start, whoever began it
        self._prepared: set[int] = set()  # pools `prepare` has waited for (it says so once)
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
        """Everything known without running: suite map, ignores, static hints, the task, the state."""
        task, problem = self.task_for(path)
        if task is not None and path is not None and task.test_command is None and size_problem(text) is None:
            if not_a_suite(path, task) is None:
                suite_code.prefetch(task.suite_rel(path), text)  # beside the analysis below (`engine.suite_code`)
        suite_map = parse_suite(text)
        reveal = settings.effective_reveal(task.reveal) if task else settings.reveal
        check = Check(
            path, version, text, suite_map, ignored_kinds(text), static_findings(suite_map), NO_TASK, task, reveal
        )
        if task is None or path is None:
            return replace(check, state=CheckState("failed", problem)) if problem else check
        outside = not_a_suite(path, task)
        if outside is not None:
            return replace(check, state=CheckState("not-run", outside), is_suite=False)
        why = why_not_run(suite_map, task)
        return replace(check, state=CheckState("not-run", why) if why else RUNNING)

    def check(
        self,
        path: Path | None,
        version: int,
        text: str,
        settings: Settings,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> Check:
        """Analyse, then run the panel when the buffer belongs to a task and can run."""
        return self.run_panel(self.analyze(path, version, text, settings), settings, progress=progress, cancel=cancel)

    def run_panel(
        self,
        base: Check,
        settings: Settings,
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> Check:
        """The analysis `base` with the panel run on its text (unchanged when it is not runnable)."""
        if not base.runnable or base.task is None or base.path is None:
            return base
        suite = Suite(base.task.suite_rel(base.path), base.text)
        options = RunOptions(
            sandbox=requested_sandbox(settings),
            timeout_s=settings.timeout_seconds,
            reveal=base.reveal,
        )
        try:
            # At `sealed` only the initial program runs: the panel stays hidden while the suite is written.
            run, stats = self.incremental.run(
                panel_to_run(base.task, base.reveal), suite, base.suite_map, options, progress=progress, cancel=cancel
            )
        except SandboxUnavailable as exc:
            return failed(base, str(exc))
        return finished(base, run, stats, sandbox=options.sandbox)

    def run_first(self, base: Check, settings: Settings, *, cancel: threading.Event | None = None) -> Check | None:
        """The initial program and the reference alone, ahead of the whole panel: a document's first
        result after one program's time, not the panel's (the panel's run then takes both from the
        per-test results, so nothing runs twice). Its findings are a part of the panel's, each final
        (a test the reference fails, a test that never fails on the initial program). None when it
        would show nothing sooner (two programs or fewer, no reference, results not kept) or name
        more than the level allows (below `full`, candidates go by names given over the whole panel,
        and a one-candidate panel would tell which one is the reference)."""
        task = base.task
        if (
            task is None
            or base.reveal != "full"
            or not any(c.reference for c in task.candidates)
            or len(task.candidates) < 2
            or not self.incremental.enabled
        ):
            return None
        first = self.run_program(base, settings, "initial", cancel=cancel)
        return None if cancel is not None and cancel.is_set() else first

    def run_program(
        self,
        base: Check,
        settings: Settings,
        program: str,
        test: str | None = None,
        *,
        cancel: threading.Event | None = None,
    ) -> Check:
        """The analysis `base` with the suite (or its test `test`) run on one program of its panel:
        `initial` or a candidate id. The initial program runs with the reference (whether it
        detects the bug depends on it) and a candidate with the initial program (every run has
        it); each comes from the cache when its tests did not change. Not the document's check:
        the panel is not all there."""
        if not base.runnable or base.task is None or base.path is None:
            return base
        task = base.task
        others = (task.reference,) if program == "initial" else tuple(c for c in task.candidates if c.id == program)
        suite = Suite(task.suite_rel(base.path), base.text)
        suite_map = base.suite_map
        if test is not None:  # that test alone: the others are neither run nor looked up
            suite_map = replace(suite_map, tests=[t for t in suite_map.tests if t.name == test])
        options = RunOptions(
            sandbox=requested_sandbox(settings),
            timeout_s=settings.timeout_seconds,
            reveal=base.reveal,
            tests=(test,) if test is not None else None,
        )
        try:
            run, stats = self.incremental.run(
                panel_to_run(replace(task, candidates=others), base.reveal), suite, suite_map, options, cancel=cancel
            )
        except SandboxUnavailable as exc:
            return failed(base, str(exc))
        return finished(replace(base, task=replace(task, candidates=others)), run, stats, sandbox=options.sandbox)

    def witness(self, base: Check, settings: Settings, program: str, budget_s: float = 10.0) -> Witness | None:
        """An input on which every valid candidate agrees and the invalid candidate `program` differs
        (the witness search of `prism run`, for that one candidate, within `budget_s`), or None."""
        if base.task is None or base.reveal not in WITNESSES_SHOWN_AT:
            return None
        from prism_lsp.witness.panel_search import search_panel  # hypothesis loads on first use

        found = search_panel(
            self.session,
            base.task,
            base.text,
            sandbox=requested_sandbox(settings),
            targets={program},
            deadline=time.monotonic() + budget_s,
        )
        return found.result.witnesses.get(program)

    def start_runners(self, task: Task, settings: Settings) -> None:
        """Begin starting `task`'s runners without waiting: the sandboxes come up while the server
        publishes the static diagnostics and sets up progress (a round trip to the client). A
        sandbox that cannot start is left for the run to report."""
        self._start(task, settings)

    def prepare(self, path: Path, settings: Settings, *, build_trees: bool = False) -> tuple[Task, int] | None:
        """Start the runners the task of `path` will run in, before its first run needs them, and wait
        until they are up: (the task, how many runners), the first time for those runners, else None
        (no task, a manifest or sandbox error: the check says why). `build_trees`: also build the
        panel's trees meanwhile (when no check is about to build them itself)."""
        task, _problem = self.task_for(path)
        if task is None:
            return None
        started = self._start(task, settings)
        if started is None:
            return None
        pool_id, starting = started
        with self._lock:
            if pool_id in self._prepared:
                return None
            self._prepared.add(pool_id)
        if build_trees:
            for program in (None, *task.candidates):
                try:
                    self.session.cache.program(task, program)
                except (MaterializeError, OSError):
                    pass  # the run reports it on that candidate
        for future in starting:
            future.result()
        return task, len(starting)

    def _start(self, task: Task, settings: Settings) -> tuple[int, list[Future]] | None:
        """The one way runners start early (at `initialized`, `didOpen` or a first run): the pool's
        id and its runners' start, begun by the first caller for that pool and shared with the later
        ones; None when the sandbox cannot start (the run says why)."""
        try:
            pool = self.session.pool_for(task, requested_sandbox(settings))
        except SandboxUnavailable:
            return None
        with self._lock:
            starting = self._starting.get(id(pool))
            if starting is None:
                starting = self._starting[id(pool)] = list(pool.start())
        return id(pool), starting

    def tree(self, task: Task, program: str) -> ProgramTree | None:
        """The materialized tree of one program (None when it cannot be built)."""
        try:
            return self.session.cache.program(task, task.candidate(program))
        except (MaterializeError, OSError):
            return None

    def close(self) -> None:
        self.incremental.cache.flush()
        self.session.close()


def why_not_run(suite_map: SuiteMap, task: Task) -> str | None:
    """Why a suite of `task` cannot be run as it is now (a phrase for "not run: ..."), or None.

    A test file without tests would only collect nothing, which pytest reports as an error on
    every program; a new file is not wrong, so say so instead."""
    if suite_map.problem:  # too large or nested too deeply: not even analysed
        return suite_map.problem
    if suite_map.syntax_errors:
        first = min(issue.span.start_line for issue in suite_map.syntax_errors)
        return f"the buffer has a syntax error (line {first})"
    if not suite_map.tests and task.test_command is None:
        return "no tests yet"
    return None

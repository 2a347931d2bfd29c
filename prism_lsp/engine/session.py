"""An engine session: sandbox backends, warm runner pools and the tree cache, kept between runs.

The CLI makes one for a command; the language server keeps one for its life,
so runners stay warm and trees stay built while the author types.

Docker pools are per task (the task's image; one container per runner);
bubblewrap and `none` pools are shared by tasks with the same settings, since
those isolate every runner on its own. Only the `max_pools` most recently used
pools stay alive (closing a Docker pool removes its container), so a `prism
score` over hundreds of tasks, or a server that saw many, holds a few.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.judge.reveal import after_writing, panel_to_run, strictest
from prism_lsp.materialize import TreeCache
from prism_lsp.materialize.cache import default_cache_dir
from prism_lsp.sandbox import Limits, chosen_sandbox, resolve_backend
from prism_lsp.sandbox.base import SandboxUnavailable, default_runners

if TYPE_CHECKING:
    from prism_lsp.engine.panel import Progress
    from prism_lsp.judge.findings import Finding
    from prism_lsp.model.report import PanelReport
    from prism_lsp.model.run import PanelRun, Suite
    from prism_lsp.model.task import Task


class SessionClosed(SandboxUnavailable):
    """The session was closed (shutdown, Ctrl-C): no runner starts any more."""


@dataclass(frozen=True)
class RunOptions:
    """Per-run choices that override the manifest (None = the manifest's value)."""

    sandbox: str | None = None
    timeout_s: float | None = None
    reveal: str | None = None
    tests: tuple[str, ...] | None = None
    # Programs to run (ids, the initial state's `initial`); None: all. The others are left out of the
    # run, with an empty `pass` in their place (the incremental scheduler has their results).
    programs: frozenset[str] | None = None
    # Verdicts that hold from run to run (judge/stability.py): the first hash seed, how many
    # seeds every program runs under, and whether a valid candidate's failure is confirmed first.
    hash_seed: int = 0
    repeat: int = 1
    confirm: bool = True

    # The suite is finished and scored by whoever scores it (`prism score`): `sealed` reads as `counts`.
    scoring: bool = False

    def level(self, task: Task) -> str:
        """The reveal level of a run of `task` with these options: the strictest of both."""
        level = strictest(self.reveal, task.reveal)
        return after_writing(level) if self.scoring else level


class EngineSession:
    """What the engine keeps between runs (warm runner pools: per task under Docker, per settings
    otherwise; the tree cache; what `auto` resolved to), and the runs over it: `run` a panel,
    `report` it. Thread-safe; close() when done."""

    def __init__(self, cache_root: Path | None = None, workers: int | None = None, max_pools: int = 4):
        self.cache = TreeCache(cache_root or default_cache_dir())
        self.workers = workers or default_runners()
        self.max_pools = max(1, max_pools)
        self._pools: OrderedDict[tuple, RunnerPool] = OrderedDict()  # least recently used first
        self._busy: Counter[tuple] = Counter()  # runs using each pool now: those are never evicted
        self._auto: dict[bool, str] = {}  # what `auto` resolved to, with and without a task image
        self._lock = threading.Lock()
        self._closed = False

    def pool_for(self, task: Task, sandbox: str | None = None, hash_seed: int = 0) -> RunnerPool:
        """The warm pool for this task (raises `SandboxUnavailable`).

        The pool stays usable until the session evicts it: at most `max_pools` pools
        are kept, and one in use by `run`/`report` is never closed under it.
        """
        with self._lease(task, sandbox, hash_seed) as pool:
            return pool

    @contextmanager
    def _lease(self, task: Task, sandbox: str | None, hash_seed: int = 0):
        key, pool, evicted = self._acquire(task, chosen_sandbox(sandbox, task.sandbox, task.manifest), hash_seed)
        try:
            self._close_all(evicted)
            yield pool
        finally:
            with self._lock:
                self._busy[key] -= 1
                if self._busy[key] <= 0:
                    del self._busy[key]
                evicted = self._evict_locked()
            self._close_all(evicted)

    def _acquire(self, task: Task, name: str, hash_seed: int = 0) -> tuple[tuple, RunnerPool, list[RunnerPool]]:
        brings_image = bool(task.image or task.dockerfile)
        with self._lock:
            if self._closed:  # a run still going at shutdown must not start new runners
                raise SessionClosed("the engine is shutting down")
            backend = None
            resolved = self._auto.get(brings_image) if name == "auto" else name
            if resolved is None:
                backend = resolve_backend(
                    name,
                    self.cache.root,
                    image=task.image,
                    dockerfile=task.dockerfile,
                    python=task.python,
                    python_source=f"{task.manifest}: task.python",
                )
                resolved = self._auto[brings_image] = backend.name
            key = (
                resolved,
                task.python,
                task.image,
                str(task.dockerfile),
                task.memory_mb,
                task.pids_max,
                str(task.root) if resolved == "docker" else None,
                hash_seed,
            )
            pool = self._pools.get(key)
            if pool is None:
                backend = backend or resolve_backend(
                    resolved,
                    self.cache.root,
                    image=task.image,
                    dockerfile=task.dockerfile,
                    python=task.python,
                    python_source=f"{task.manifest}: task.python",
                )
                pool = RunnerPool(
                    backend,
                    workers=self.workers,
                    python=task.python,
                    limits=Limits(memory_mb=task.memory_mb, pids_max=task.pids_max, hash_seed=hash_seed),
                )
                self._pools[key] = pool
            elif backend is not None:
                backend.close()  # only resolved `auto`; it never started anything
            self._pools.move_to_end(key)
            self._busy[key] += 1
            return key, pool, self._evict_locked()

    def _evict_locked(self) -> list[RunnerPool]:
        """Take the least recently used idle pools beyond `max_pools` out (the caller closes them)."""
        evicted = []
        for key in list(self._pools):
            if len(self._pools) <= self.max_pools:
                break
            if not self._busy[key]:
                evicted.append(self._pools.pop(key))
        return evicted

    @staticmethod
    def _close_all(pools: list[RunnerPool]) -> None:
        # Outside the lock: closing joins runner threads and removes containers.
        for pool in pools:
            pool.close()

    def resolved_backend(self, task: Task, sandbox: str | None = None) -> str | None:
        """The backend runs of `task` got in this session (None before `auto` was resolved); starts nothing."""
        try:
            name = chosen_sandbox(sandbox, task.sandbox, task.manifest)
        except SandboxUnavailable:
            return None
        with self._lock:
            return self._auto.get(bool(task.image or task.dockerfile)) if name == "auto" else name

    def start(self, task: Task, sandbox: str | None = None) -> None:
        """Begin starting the runners `task` will run in, without waiting (raises `SandboxUnavailable`
        now rather than at the first run)."""
        self.pool_for(task, sandbox).start()

    def run(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions = RunOptions(),
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> PanelRun:
        with self._lease(task, options.sandbox, options.hash_seed) as pool:
            return self._run(task, suite, options, pool, progress, cancel)

    def _run(self, task, suite, options, pool, progress, cancel) -> PanelRun:
        from prism_lsp.engine.change_coverage import trusted_lines
        from prism_lsp.engine.results import program_from_runner

        run = self._run_panel(task, suite, options, pool, progress, cancel)
        return trusted_lines(
            panel_to_run(task, options.level(task)),
            run,
            lambda request: program_from_runner(pool.submit(request, cancel).result()),
        )

    def _run_panel(self, task, suite, options, pool, progress, cancel) -> PanelRun:
        # The panel and report modules (pydantic models) load on the first run, not with the
        # session: `prism run` starts its runners first and imports them while the sandboxes come up.
        from prism_lsp.engine.confirm import Confirmer, merge_repeats
        from prism_lsp.engine.panel import run_programs

        task = panel_to_run(task, options.level(task))  # at `sealed`, the initial program only

        def programs(on: RunnerPool, on_result=None) -> PanelRun:
            return run_programs(
                task,
                suite,
                on,
                self.cache,
                timeout_s=options.timeout_s,
                tests=list(options.tests) if options.tests else None,
                only=options.programs,
                progress=progress,
                cancel=cancel,
                on_result=on_result,
                # Where a candidate's findings are shown, a selected run skips those it cannot reach.
                select=options.repeat == 1 and options.level(task) in ("full", "labels"),
            )

        def pool_for(seed: int) -> RunnerPool:
            return pool if seed == options.hash_seed else self.pool_for(task, options.sandbox, seed)

        seed = options.hash_seed
        confirmer = (
            Confirmer(task, suite, pool_for, seed, timeout_s=options.timeout_s, cancel=cancel)
            if options.confirm and options.repeat == 1
            else None
        )
        run = replace(programs(pool, confirmer), seeds=(seed,))
        if options.repeat > 1:
            runs = [(seed, run)] + [(seed + i, programs(pool_for(seed + i))) for i in range(1, options.repeat)]
            return merge_repeats(task, suite, runs, pool_for, timeout_s=options.timeout_s, cancel=cancel)
        return confirmer.finish(run) if confirmer is not None else run

    def report(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions = RunOptions(),
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        extra_findings: list[Finding] | None = None,
    ) -> PanelReport:
        """Run the panel (`run`, whatever a subclass makes of it) and build its report (what `prism run` prints)."""
        run = self.run(task, suite, options, progress=progress, cancel=cancel)
        return self.report_of(task, suite, run, options, extra_findings=extra_findings)

    def report_of(
        self,
        task: Task,
        suite: Suite,
        run: PanelRun,
        options: RunOptions = RunOptions(),
        *,
        extra_findings: list[Finding] | None = None,
    ) -> PanelReport:
        """The report of a finished `run` (callers that also need the raw run: `prism run`, suggestions)."""
        backend = self.pool_for(task, options.sandbox, options.hash_seed).backend
        warning = backend.warning
        from prism_lsp.judge.report import build_report

        return build_report(
            task,
            suite,
            run,
            reveal=options.level(task),
            extra_findings=extra_findings,
            sandbox=backend.name,
            warnings=[warning] if warning else [],
        )

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pools, self._pools = list(self._pools.values()), OrderedDict()
        for pool in pools:
            pool.close()

    def __enter__(self) -> EngineSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

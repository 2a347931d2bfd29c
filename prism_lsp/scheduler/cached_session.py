"""An engine session whose panel runs reuse per-test results kept on disk: `prism run`, `gate`, `score`.

`CachedSession.run` (and `report`) go through the incremental scheduler over the session's own
engine, with a `ResultCache` on `<cache>/results/` (`open_results`), so a second command on
the same task and suite reruns only the tests (and programs) whose results it lacks. `counts`
sums what every run of the session took from the cache, for the reports to say.
The language server uses the same cache through its `Checker`.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.reveal import panel_to_run
from prism_lsp.scheduler.result_cache import ResultCache
from prism_lsp.scheduler.result_store import DiskStore

if TYPE_CHECKING:
    from prism_lsp.engine.panel import PanelRun, Progress, Suite
    from prism_lsp.model.report import CacheOut
    from prism_lsp.model.task import Task
    from prism_lsp.scheduler.incremental import RunStats

RESULTS_FOLDER = "results"
_MAX_DEPTH = 64  # folders walked up looking for a repository


def repository_of(path: Path) -> Path | None:
    """The root of the git work tree holding `path` (nearest folder with `.git`), without running git."""
    here = path.resolve()
    for folder in [here, *here.parents][:_MAX_DEPTH]:
        if (folder / ".git").exists():
            return folder
    return None


def open_results(
    cache_root: Path, *, enabled: bool = True, near: Path | None = None, write_behind: bool = False
) -> tuple[ResultCache, str]:
    """The result cache of `cache_root` (on disk under `results/`), and a note when it is memory only:
    `--no-cache`, a folder that is not private to this user, or one inside the repository of `near`
    (the cache must never write into the author's repository). `PRISM_NO_CACHE=1` in the environment
    is `--no-cache` for every command and the language server. `write_behind`: bundles are written by
    a thread of their own (`ResultCache.flush` waits for them)."""
    if not enabled or os.environ.get("PRISM_NO_CACHE", "") not in ("", "0"):
        return ResultCache(), ""
    folder = cache_root / RESULTS_FOLDER
    repo = repository_of(near) if near is not None else None
    if repo is not None and folder.resolve().is_relative_to(repo):
        return (
            ResultCache(),
            f"results are not kept on disk: the cache folder {cache_root} is inside the repository {repo}",
        )
    store = DiskStore.open(folder)
    if isinstance(store, str):
        return ResultCache(), f"results are not kept on disk: {store}"
    return ResultCache(disk=store, write_behind=write_behind), ""


@dataclass
class CacheCounts:
    """Programs and tests of this session's panel runs: run, or taken from the cache."""

    programs_run: int = 0
    programs_cached: int = 0
    tests_run: int = 0
    tests_cached: int = 0

    def add(self, stats: RunStats) -> None:
        self.programs_run += stats.programs_run
        self.programs_cached += stats.programs_cached
        self.tests_run += stats.tests_run
        self.tests_cached += stats.tests_cached

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))


class _Fresh:
    """The `PanelRunner` of the scheduler: the session's own uncached run."""

    def __init__(self, session: CachedSession) -> None:
        from prism_lsp.scheduler.incremental import SessionPanelRunner

        self._session = session
        self._trees = SessionPanelRunner(session)

    def run(self, task, suite, options, *, progress, cancel):
        return EngineSession.run(self._session, task, suite, options, progress=progress, cancel=cancel)

    def trees(self, task):
        return self._trees.trees(task)

    def backend(self, task, options):
        return self._session.resolved_backend(task, options.sandbox)


class CachedSession(EngineSession):
    """An `EngineSession` whose `run` (and so `report`) reuses the results in `results` (thread-safe)."""

    def __init__(
        self, cache_root: Path | None = None, workers: int | None = None, *, results: ResultCache | None = None
    ):
        super().__init__(cache_root, workers)
        from prism_lsp.scheduler.incremental import IncrementalRunner

        self.results = results if results is not None else ResultCache()
        self.incremental = IncrementalRunner(_Fresh(self), self.results)
        self.counts = CacheCounts()
        self._counts_lock = threading.Lock()

    def __enter__(self) -> CachedSession:
        return self

    def cache_out(self) -> CacheOut:
        """The report's `cache`: what this session's runs ran and took from the cache so far."""
        from prism_lsp.model.report import CacheOut

        with self._counts_lock:
            return CacheOut(**self.counts.as_dict())

    def run(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions = RunOptions(),
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> PanelRun:
        if options.tests is not None or options.programs is not None:  # a caller's own subset: run as asked
            return super().run(task, suite, options, progress=progress, cancel=cancel)
        from prism_lsp.analysis.suite_map import parse_suite
        from prism_lsp.engine.change_coverage import trusted_lines
        from prism_lsp.engine.results import program_from_runner

        task = panel_to_run(task, options.level(task))  # at `sealed`, the initial program only
        run, stats = self.incremental.run(
            task, suite, parse_suite(suite.text), options, progress=progress, cancel=cancel
        )
        with self._counts_lock:
            self.counts.add(stats)
        if run.trusted_lines is None and task.verifier is not None and not stats.engine_called:
            # Every result came from the cache: the verifier's changed lines (ΔC) as a fresh run has them.
            with self._lease(task, options.sandbox, options.hash_seed) as pool:
                run = trusted_lines(task, run, lambda r: program_from_runner(pool.submit(r, cancel).result()))
        return run

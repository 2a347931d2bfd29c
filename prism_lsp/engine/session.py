"""An engine session: sandbox backends, warm runner pools and the tree cache, kept between runs.

The CLI makes one for a command; the language server keeps one for its life,
so runners stay warm and trees stay built while the author types.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.engine.findings import Finding
from prism_lsp.engine.panel import PanelRun, Progress, Suite, build_report, run_programs
from prism_lsp.engine.pool import RunnerPool
from prism_lsp.materialize import TreeCache
from prism_lsp.materialize.cache import default_cache_dir
from prism_lsp.model.report import PanelReport
from prism_lsp.model.task import Task
from prism_lsp.sandbox import Limits, resolve_backend


@dataclass(frozen=True)
class RunOptions:
    """Per-run choices that override the manifest (None = the manifest's value)."""

    sandbox: str | None = None
    timeout_s: float | None = None
    reveal: str | None = None
    tests: tuple[str, ...] | None = None


class EngineSession:
    """Owns pools keyed by (backend, python, image, limits); thread-safe; close() when done."""

    def __init__(self, cache_root: Path | None = None, workers: int | None = None):
        self.cache = TreeCache(cache_root or default_cache_dir())
        self.workers = workers or os.cpu_count() or 1
        self._pools: dict[tuple, RunnerPool] = {}
        self._lock = threading.Lock()

    def pool_for(self, task: Task, sandbox: str | None = None) -> RunnerPool:
        """The warm pool for this task's sandbox settings (raises `SandboxUnavailable`)."""
        name = sandbox or task.sandbox
        key = (name, task.python, task.image, str(task.dockerfile), task.memory_mb)
        with self._lock:
            pool = self._pools.get(key)
            if pool is None:
                backend = resolve_backend(name, self.cache.root, image=task.image, dockerfile=task.dockerfile)
                pool = RunnerPool(backend, workers=self.workers, python=task.python,
                                  limits=Limits(memory_mb=task.memory_mb))
                self._pools[key] = pool
            return pool

    def run(self, task: Task, suite: Suite, options: RunOptions = RunOptions(), *,
            progress: Progress | None = None, cancel: threading.Event | None = None) -> PanelRun:
        pool = self.pool_for(task, options.sandbox)
        return run_programs(task, suite, pool, self.cache, timeout_s=options.timeout_s,
                            tests=list(options.tests) if options.tests else None, progress=progress, cancel=cancel)

    def report(self, task: Task, suite: Suite, options: RunOptions = RunOptions(), *,
               progress: Progress | None = None, cancel: threading.Event | None = None,
               extra_findings: list[Finding] | None = None) -> PanelReport:
        """Run the panel and build its report (what `prism run` prints)."""
        pool = self.pool_for(task, options.sandbox)
        run = self.run(task, suite, options, progress=progress, cancel=cancel)
        warning = pool.backend.warning
        return build_report(task, suite, run, reveal=options.reveal or task.reveal, extra_findings=extra_findings,
                            sandbox=pool.backend.name, warnings=[warning] if warning else [])

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()

    def __enter__(self) -> "EngineSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

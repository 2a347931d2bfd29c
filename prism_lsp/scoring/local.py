"""The local engine: one engine session on this machine, several pairs in flight at once.

Pairs run on threads sharing one session, so runners stay warm and every tree is built
once; a few pairs at a time keep the runner pool full even when a panel is small
(a HumanEval task has two programs). Results come back as pairs finish; the caller
orders them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from prism_lsp.scoring.job import Job, JobOptions, open_session, run_job


class LocalEngine:
    """Scores jobs on this machine; `close()` stops what is still running."""

    name = "local"

    def __init__(
        self,
        options: JobOptions,
        cache_dir: Path | None = None,
        workers: int | None = None,
        *,
        result_cache: bool = False,
    ):
        self.options = options
        self.session = open_session(cache_dir, workers, result_cache=result_cache)
        # Two pairs per runner: while one pair's results are turned into a report, the next one runs.
        self.pairs_at_once = 2 * self.session.workers
        self._cancel = threading.Event()
        self._executor: ThreadPoolExecutor | None = None

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, dict, float, str]]:
        """(job, record, milliseconds, where it ran) for every job, in the order they finish."""
        self._executor = ThreadPoolExecutor(self.pairs_at_once, thread_name_prefix="prism-score")
        queue = list(jobs)
        running: dict[Future, Job] = {}
        while queue or running:
            # Submit only what can run: queued pairs are then dropped at once on Ctrl-C.
            while queue and len(running) < self.pairs_at_once:
                job = queue.pop(0)
                running[self._executor.submit(run_job, self.session, job, self.options, self._cancel)] = job
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: running[f].pair.index):
                job = running.pop(future)
                record, ms = future.result()
                yield job, record, ms, "local"

    def close(self) -> None:
        self._cancel.set()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        self.session.close()  # kills running programs, so the threads above end soon

    def __enter__(self) -> LocalEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

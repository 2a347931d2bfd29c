"""`score`: identify the pairs, reuse what the store holds, score the rest with an engine, in input order.

The result does not depend on the engine, the number of workers or the resume history:
records are placed by the pair's position in the input, whatever order they finish in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.scoring.job import Job, JobOptions, identify
from prism_lsp.scoring.pairs import Pair
from prism_lsp.scoring.store import ResultStore

# (pairs done, pairs in all, error rows so far)
Progress = Callable[[int, int, int], None]


class RayMissing(Exception):
    """`--engine ray` without Ray installed."""


@dataclass(frozen=True)
class ScoreOptions:
    """How to score: the options that change results (`job`), and where and how to run."""

    job: JobOptions = JobOptions()
    engine: str = "local"
    ray_address: str | None = None
    workers: int | None = None
    cache_dir: Path | None = None
    out: Path | None = None
    force: bool = False
    result_cache: bool = False  # per-test results kept on disk (local engine; off for `prism score`, whose --out records must not depend on a cache)


@dataclass
class ScoreRun:
    """Every pair's record in input order; how many were scored now, and how many reused."""

    records: list[dict]
    scored: int = 0
    reused: int = 0
    journal: list[dict] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(r["status"] == "error" for r in self.records)


def _engine(options: ScoreOptions):
    if options.engine == "ray":
        try:
            from prism_lsp.scoring.ray_engine import RayEngine
        except ImportError as exc:
            raise RayMissing(f"--engine ray needs Ray ({exc}); install it with: pip install -e '.[ray]'") from None
        return RayEngine(options.job, options.cache_dir, options.workers, options.ray_address)
    from prism_lsp.scoring.local import LocalEngine

    return LocalEngine(options.job, options.cache_dir, options.workers, result_cache=options.result_cache)


def score(pairs: list[Pair], options: ScoreOptions, progress: Progress | None = None) -> ScoreRun:
    """Score every pair (reusing stored reports unless `force`); raises KeyboardInterrupt through."""
    store = ResultStore(options.out) if options.out else None
    records: list[dict | None] = [None] * len(pairs)
    todo: list[Job] = []
    run = ScoreRun(records=[])
    for pair in pairs:
        job = identify(pair)
        if isinstance(job, dict):
            records[pair.index] = job
            continue
        stored = store.load(job, options.job) if store and not options.force else None
        if stored is not None:
            records[pair.index] = stored
            run.reused += 1
        else:
            todo.append(job)
    done = len(pairs) - len(todo)
    errors = sum(1 for r in records if r is not None and r["status"] == "error")
    if progress:
        progress(done, len(pairs), errors)
    if todo:
        with _engine(options) as engine:
            for job, record, ms, where in engine.run(todo):
                if store:
                    store.save(job, record, ms, where)
                records[job.pair.index] = record
                run.scored += 1
                done += 1
                errors += record["status"] == "error"
                if progress:
                    progress(done, len(pairs), errors)
    run.records = [r for r in records if r is not None]
    run.journal = store.journal_lines() if store else []
    return run

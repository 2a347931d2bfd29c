"""The Ray engine: one scoring actor per node, each holding an engine session; pairs routed by task.

Imported only for `--engine ray` (Ray is an optional extra: `pip install -e '.[ray]'`).
Each actor keeps Prism's warm path on its node -- warm runners and a tree cache -- and
every pair of a task goes to the same node (a stable hash of the task id), so a task's
trees are built once per cluster, not once per pair. Sandboxing is the node's: a node
without bubblewrap answers with an error row saying so; `--sandbox docker` uses the
node's Docker engine.

Nodes see task folders at the paths the driver gives (a shared filesystem, or the same
checkout on every node); suites travel with the job. Records come back to the driver,
which alone writes the store.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from prism_lsp.scoring.job import Job, JobOptions, open_session, run_job


class _NodeScorer:
    """One per node: a warm engine session scoring pairs, a few at a time (a threaded actor)."""

    def __init__(self, cache_dir: str | None, workers: int | None, options: JobOptions):
        self.session = open_session(cache_dir, workers)
        self.options = options
        self.node = ray.get_runtime_context().get_node_id()

    def score(self, job: Job) -> tuple[dict, float, str]:
        record, ms = run_job(self.session, job, self.options)
        return record, ms, f"ray node {self.node}"

    def close(self) -> None:
        self.session.close()


# An actor class: `ray.remote` makes what mypy cannot see through (`.options`, `.remote`).
NodeScorer: Any = ray.remote(num_cpus=0)(_NodeScorer)


def _route(task_id: str, n: int) -> int:
    # Python's hash() of a str changes with the process's seed; the route must not.
    return int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8], "big") % n


class RayEngine:
    """Scores jobs on a Ray cluster (`address`), or on a local Ray started for this run."""

    name = "ray"

    def __init__(
        self, options: JobOptions, cache_dir: Path | None = None, workers: int | None = None, address: str | None = None
    ):
        self._started = not ray.is_initialized()
        if self._started:
            # "local", not None: None would join whatever cluster /tmp/ray last recorded, even a dead one.
            ray.init(
                address=address or "local",
                logging_level=logging.WARNING,
                log_to_driver=False,
                include_dashboard=False,
                configure_logging=True,
            )
        nodes = sorted((n for n in ray.nodes() if n.get("Alive")), key=lambda n: n["NodeID"])
        self.actors = []
        for node in nodes:
            cpus = int(node.get("Resources", {}).get("CPU", 1)) or 1
            node_workers = workers or cpus
            strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
            self.actors.append(
                NodeScorer.options(scheduling_strategy=strategy, max_concurrency=2 * node_workers).remote(
                    str(cache_dir) if cache_dir else None, node_workers, options
                )
            )

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, dict, float, str]]:
        """(job, record, milliseconds, where it ran) for every job, in the order they finish."""
        pending = {}
        for job in jobs:
            actor = self.actors[_route(job.task_id, len(self.actors))]
            pending[actor.score.remote(job)] = job
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                record, ms, node = ray.get(ref)
                yield pending.pop(ref), record, ms, node

    def close(self) -> None:
        try:
            ray.get([a.close.remote() for a in self.actors], timeout=30)
        except Exception:  # noqa: BLE001 -- a dead actor or cluster leaves nothing of ours to close
            pass
        for actor in self.actors:
            ray.kill(actor)
        if self._started:
            ray.shutdown()

    def __enter__(self) -> RayEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""Per-panel overhead of the Docker sandbox vs bubblewrap on the fixture tasks.

    python bench/docker_overhead.py [--repeat N] [--suite test_strong.py]

For every fixture task, runs the suite on the initial program and the whole panel
N times per sandbox with warm runners (one engine session per sandbox, a warm-up run
first, as the language server keeps them), and prints the median wall time per panel,
the docker/bubblewrap ratio, and the one-off cold start (container + runners) of each.
Last, the host's share of Docker's per-program cost that bubblewrap does not pay: placing
each program's tree alone in its runner's staging folder and clearing it (`docker_stage`),
timed on every tree the runs left in the cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox.docker_stage import StageRoot
from prism_lsp.tasks import load_task

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _panel_times(session: EngineSession, sandbox: str, suite_name: str, repeat: int) -> dict[str, tuple[float, float]]:
    """task id -> (cold first run ms, median warm run ms)."""
    out = {}
    for folder in sorted(p for p in FIXTURES.iterdir() if (p / "prism.toml").is_file()):
        suite_path = folder / "suites" / suite_name
        if not suite_path.is_file():
            continue
        task = load_task(folder)
        suite = Suite(task.suite_rel(suite_path), suite_path.read_text())
        options = RunOptions(sandbox=sandbox)
        start = time.perf_counter()
        session.run(task, suite, options)
        cold = (time.perf_counter() - start) * 1000
        warm = []
        for _ in range(repeat):
            start = time.perf_counter()
            session.run(task, suite, options)
            warm.append((time.perf_counter() - start) * 1000)
        out[task.id] = (cold, statistics.median(warm))
    return out


def _staging_times(cache: Path, repeat: int) -> list[float]:
    """ms to stage then clear each cached program tree, as the pool does around every Docker program."""
    root = StageRoot(cache, "bench", "/prism-stage")
    stage = root.for_runner(os.getuid() + 100_000)
    times = []
    try:
        for tree in sorted((cache / "trees").glob("*/tree")):
            for _ in range(repeat):
                start = time.perf_counter()
                stage.place(str(tree))
                stage.clear()
                times.append((time.perf_counter() - start) * 1000)
    finally:
        root.remove()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--suite", default="test_strong.py")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="prism-bench-") as cache:
        for sandbox in ("bubblewrap", "docker"):
            # A fresh session per sandbox: the first run of each task includes starting its runners.
            with EngineSession(Path(cache), args.workers) as session:
                results[sandbox] = _panel_times(session, sandbox, args.suite, args.repeat)
        staging = _staging_times(Path(cache), args.repeat)
    bw, dk = results["bubblewrap"], results["docker"]
    print(f"{'task':<18} {'bwrap ms':>9} {'docker ms':>10} {'ratio':>6}   {'cold bwrap':>10} {'cold docker':>11}")
    for task in bw:
        print(
            f"{task:<18} {bw[task][1]:>9.0f} {dk[task][1]:>10.0f} {dk[task][1] / bw[task][1]:>6.2f}"
            f"   {bw[task][0]:>10.0f} {dk[task][0]:>11.0f}"
        )
    med_bw = statistics.median(v[1] for v in bw.values())
    med_dk = statistics.median(v[1] for v in dk.values())
    print(f"{'median':<18} {med_bw:>9.0f} {med_dk:>10.0f} {med_dk / med_bw:>6.2f}")
    print(
        f"staging per Docker program: median {statistics.median(staging):.2f} ms, "
        f"max {max(staging):.2f} ms ({len(staging)} stagings)"
    )


if __name__ == "__main__":
    main()

"""Issue 11's table in one run: every Prism row beside the naive loop measured in the same minutes.

Rows: warm full panel (fixtures, initial + 10), one-test edit and whole-file change through the
real server (`lsp_latency.py`, debounce 0), cold `prism run`, a warm 50-candidate panel
(`panel50.py`), and `prism-lsp` start -> `initialize` answered (`server_start.py`).

Two naive loops, both sequential `python -m pytest` per tree (`panel_speed.naive_panel`):
"naive" with this environment's installed plugins autoloading (what a harness does without
thinking), and "plugin-free" with `PYTEST_DISABLE_PLUGIN_AUTOLOAD=1` (a harness that knows pytest).
Both run with the same fixed `PYTHONHASHSEED`, so neither depends on the hash seed, once, on the
first task only (the tasks are the same size; each loop costs seconds). The ratio is
naive / Prism for the full-panel rows (an edit's naive answer is rerunning the panel); the
50-candidate naive time is the measured per-program naive time times its 51 programs (running it
would take most of the time budget); server start has no naive counterpart. Last, the runner's
per-phase timings of one program (`runner_phases.py`) and the CPU a program costs, user and
system, so the next bottleneck is visible.

    python bench/table.py [--repeat 3] [--rounds 5] [--tasks mean-rounded,slugify,top-scorers]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import lsp_latency, server_start  # noqa: E402
from bench.panel50 import generate  # noqa: E402
from bench.panel_speed import cold_cli, naive_panel  # noqa: E402
from bench.runner_phases import PHASES, cpu_per_program, phases_of  # noqa: E402
from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402

TARGETS = {
    "warm": "<= 100 ms",
    "one": "<= 100 ms p50, <= 150 p95",
    "whole": "<= 130 ms p50",
    "cold": "<= 450 ms",
    "p50": "<= 500 ms",
    "start": "<= 1000 ms",
}


def naive_env(plugin_free: bool) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if plugin_free:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    else:
        env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    return env


def panels(engine: EngineSession, tasks: list[str], repeat: int, cache: Path, options: RunOptions) -> dict:
    """Warm and cold Prism, and both naive loops, per task; medians over tasks."""
    warm, cold, naive, free, per_program = [], [], [], [], []
    for name in tasks:
        task = load_task(ROOT / "fixtures" / name)
        suite_path = task.root / "suites" / "test_strong.py"
        suite = Suite(task.suite_rel(suite_path), suite_path.read_text())
        engine.run(task, suite, options)  # runners started, trees built
        warm.append(statistics.median(engine.run(task, suite, options).elapsed_ms for _ in range(repeat)))
        cold.append(statistics.median(cold_cli(task.root, suite_path, cache) for _ in range(max(1, repeat // 2))))
        if name == tasks[0]:  # the naive loops cost seconds each: the first task's stand for all
            trees = [engine.cache.program(task, c).path for c in (None, *task.candidates)]
            naive.append(naive_panel(trees, suite, naive_env(False)))
            free.append(naive_panel(trees, suite, naive_env(True)))
            per_program.append((naive[-1] / len(trees), free[-1] / len(trees)))
    return {
        "warm": statistics.median(warm),
        "cold": statistics.median(cold),
        "naive": statistics.median(naive),
        "free": statistics.median(free),
        "naive_program": statistics.median(p[0] for p in per_program),
        "free_program": statistics.median(p[1] for p in per_program),
    }


def big_panel(engine: EngineSession, cache: Path, repeat: int, options: RunOptions) -> tuple[float, int]:
    task = load_task(generate(cache / "panel50"))
    suite_path = task.root / "suites" / "test_strong.py"
    suite = Suite(task.suite_rel(suite_path), suite_path.read_text())
    engine.run(task, suite, options)
    return statistics.median(engine.run(task, suite, options).elapsed_ms for _ in range(repeat)), len(
        task.candidates
    ) + 1


def edits(tasks: list[str], rounds: int, cache: Path) -> tuple[list[float], list[float]]:
    one: list[float] = []
    whole: list[float] = []
    for name in tasks:
        result = asyncio.run(lsp_latency.session(name, False, rounds, str(cache)))
        one += result["one"]
        whole += result["whole"]
    return one, whole


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5, help="edits of each kind per task through the server")
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--sandbox", default="bubblewrap")
    ap.add_argument("--tasks", default="mean-rounded,slugify,top-scorers")
    args = ap.parse_args()
    tasks = args.tasks.split(",")
    cache = Path(tempfile.mkdtemp(prefix="prism-bench-"))
    options = RunOptions(sandbox=args.sandbox)
    with EngineSession(cache) as engine:
        p = panels(engine, tasks, args.repeat, cache, options)
        big_ms, big_n = big_panel(engine, cache, args.repeat, options)
        phased = load_task(ROOT / "fixtures" / tasks[0])
        suite_file = phased.root / "suites" / "test_strong.py"
        phased_suite = Suite(phased.suite_rel(suite_file), suite_file.read_text())
        phases = phases_of(engine, phased, phased_suite, args.sandbox, args.repeat)
    user, system = cpu_per_program(cache, phased, phased_suite, args.sandbox)
    one, whole = edits(tasks, args.rounds, cache)
    start = statistics.median(server_start.measure(args.starts))
    pct = lsp_latency.pct

    def ratios(ms: float, naive: float, free: float) -> str:
        return f"{naive / ms:>9.1f}x{free / ms:>12.1f}x"

    print(
        f"issue 11 table: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, sandbox {args.sandbox}, "
        f"tasks {args.tasks}; naive loop ({tasks[0]}, initial + 10) {p['naive']:.0f} ms, "
        f"plugin-free {p['free']:.0f} ms"
    )
    print(f"{'row':<44}{'prism':>22}{'/naive':>10}{'/plugin-free':>13}  target")
    rows = [
        ("warm full panel, fixtures (initial + 10)", f"{p['warm']:.0f} ms", p["warm"], "warm"),
        (
            "one-test edit -> publishDiagnostics",
            f"{statistics.median(one):.0f} / {pct(one, 0.95):.0f} ms p50/p95",
            statistics.median(one),
            "one",
        ),
        (
            "whole-file change -> publishDiagnostics",
            f"{statistics.median(whole):.0f} / {pct(whole, 0.95):.0f} ms p50/p95",
            statistics.median(whole),
            "whole",
        ),
        ("cold `prism run` (one process)", f"{p['cold']:.0f} ms", p["cold"], "cold"),
    ]
    for label, shown, ms, key in rows:
        print(f"{label:<44}{shown:>22}{ratios(ms, p['naive'], p['free'])}  {TARGETS[key]}")
    print(
        f"{f'{big_n - 1}-candidate panel, warm (initial + {big_n - 1})':<44}{f'{big_ms:.0f} ms':>22}"
        f"{ratios(big_ms, p['naive_program'] * big_n, p['free_program'] * big_n)}  {TARGETS['p50']}"
        " (naive: per-program x programs)"
    )
    print(
        f"{'prism-lsp start -> initialize answered':<44}{f'{start:.0f} ms':>22}{'-':>10}{'-':>13}  {TARGETS['start']}"
    )
    shown = [f"{name} {statistics.median(phases[name]):.1f}" for name in PHASES if phases[name]]
    print(
        f"per program, one at a time, median ms ({tasks[0]}; bench/runner_phases.py says what each is): "
        + ", ".join(shown)
    )
    print(
        f"CPU per program, one runner ({tasks[0]}, the whole machine's time): user {user:.1f} ms, "
        f"system {system:.1f} ms"
    )


if __name__ == "__main__":
    main()

"""Full-panel speed: Prism (warm engine, and cold `prism run`) vs the naive loop.

The naive loop is what a harness does without Prism: for the initial state and
each of the 10 candidates, copy the built tree, write the suite in, and start
one `python -m pytest` subprocess, sequentially. Trees are pre-built for both
sides, so this measures running, not patching.

    python bench/panel_speed.py [--repeat 5] [--suite test_strong.py]

Prints per-task medians and the ratio naive / Prism measured in this one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.materialize.cache import remove_tree  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402


def naive_panel(trees: list[Path], suite: Suite, env: dict[str, str] | None = None) -> float:
    """Milliseconds for one pytest subprocess per tree, in turn (`env`: the environment, default ours)."""
    base = os.environ if env is None else env
    start = time.perf_counter()
    for tree in trees:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "tree"
            # A writable copy (cached trees are read-only), as a harness would check a tree out.
            shutil.copytree(tree, work, copy_function=shutil.copyfile)
            for folder, _, _ in os.walk(work):
                os.chmod(folder, 0o755)
            target = work / suite.rel_path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(suite.text)
            subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", suite.rel_path],
                cwd=work,
                capture_output=True,
                env=dict(base, PYTHONPATH=str(work)),
            )
    return (time.perf_counter() - start) * 1000


def cold_cli(task_dir: Path, suite_path: Path, cache: Path) -> float:
    # The installed `prism` beside this interpreter (a venv's), else the same entry point through it.
    script = Path(sys.executable).with_name("prism")
    prism = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from prism_lsp.cli import prism_main; prism_main()"]
    )
    start = time.perf_counter()
    subprocess.run(
        [*prism, "run", str(task_dir), str(suite_path), "--json"],
        capture_output=True,
        env=dict(os.environ, PRISM_CACHE_DIR=str(cache)),
    )
    return (time.perf_counter() - start) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--suite", default="test_strong.py")
    ap.add_argument("--sandbox", default="bubblewrap")
    ap.add_argument("--tasks", nargs="*", help="fixture task ids (default: all)")
    args = ap.parse_args()
    cache = Path(tempfile.mkdtemp(prefix="prism-bench-"))
    rows = []
    with EngineSession(cache) as engine:
        for manifest in sorted((ROOT / "fixtures").glob("*/prism.toml")):
            task = load_task(manifest.parent)
            if args.tasks and task.id not in args.tasks:
                continue
            suite_path = task.root / "suites" / args.suite
            suite = Suite(task.suite_rel(suite_path), suite_path.read_text())
            options = RunOptions(sandbox=args.sandbox)
            engine.run(task, suite, options)  # warm: runners started, trees built
            trees = [engine.cache.baseline(task).path] + [engine.cache.candidate(task, c).path for c in task.candidates]
            warm = [engine.run(task, suite, options).elapsed_ms for _ in range(args.repeat)]
            cold = [cold_cli(task.root, suite_path, cache) for _ in range(max(1, args.repeat // 2))]
            naive = [naive_panel(trees, suite) for _ in range(max(1, args.repeat // 2))]
            rows.append((task.id, statistics.median(warm), statistics.median(cold), statistics.median(naive)))
    remove_tree(cache)  # its trees are read-only: a plain rmtree fails for a non-root user
    print(f"{'task':<18}{'prism warm ms':>14}{'prism cold ms':>15}{'naive ms':>10}{'naive/warm':>12}{'naive/cold':>12}")
    for name, warm, cold, naive in rows:
        print(f"{name:<18}{warm:>14.0f}{cold:>15.0f}{naive:>10.0f}{naive / warm:>11.1f}x{naive / cold:>11.1f}x")
    w = statistics.median(r[1] for r in rows)
    c = statistics.median(r[2] for r in rows)
    n = statistics.median(r[3] for r in rows)
    print(f"{'median':<18}{w:>14.0f}{c:>15.0f}{n:>10.0f}{n / w:>11.1f}x{n / c:>11.1f}x")
    print(f"(full panel = initial + {len(task.candidates)} candidates; {os.cpu_count()} cores; sandbox {args.sandbox})")


if __name__ == "__main__":
    main()

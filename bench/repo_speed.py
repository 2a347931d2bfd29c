"""A real repository's test module on a seven-program panel: tree sharing and warm speed.

    python bench/repo_speed.py PATH --module tests/test_more.py --target more_itertools/more.py

PATH is a git repository you fetched (nothing of it is committed here). The task is made in a
temporary folder: the initial state is the repository's tracked files at HEAD (`git archive`),
and six candidates each change one line of `--target` (a trailing comment on a `return` line:
the timing of a panel does not depend on its verdicts). Printed, measured in this one run:

- trees: files and bytes per tree, and the bytes the seven cached trees hold on disk (inodes
  counted once) against seven copies, what each tree cost before candidates shared files;
- the warm panel (runners started, trees built: what the server and `prism score` see), median
  of `--repeat`, against the naive loop of one plain `python -m pytest` process per program in
  turn, with this interpreter's plugins autoloading and plugin-free
  (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`); both loops are `bench/panel_speed.naive_panel`;
- the cold first result (a new engine: sandboxes started, trees built, the panel run) against
  one plain pytest process on the initial program.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from panel_speed import naive_panel  # noqa: E402
from table import naive_env  # noqa: E402

from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.materialize.cache import remove_tree  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402


def make_task(repo: Path, target: str, programs: int, out: Path, timeout_s: int) -> Path:
    initial = out / "initial"
    initial.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(initial)], input=archive, check=True)
    lines = (initial / target).read_text().splitlines(keepends=True)
    sites = [i for i, line in enumerate(lines) if line.strip().startswith("return ")][: programs - 1]
    entries = [f'[task]\nid = "repo-speed"\nstatement = "speed"\ninitial = "initial"\ntimeout_s = {timeout_s}\n']
    for k, i in enumerate(sites):
        old = lines[i]
        new = old.rstrip("\n") + f"  # candidate {k}\n"
        patch = f"--- a/{target}\n+++ b/{target}\n@@ -{i + 1},1 +{i + 1},1 @@\n-{old}+{new}"
        (out / "candidates").mkdir(exist_ok=True)
        (out / "candidates" / f"c{k}.diff").write_text(patch)
        reference = "\nreference = true" if k == 0 else ""
        entries.append(f'[[candidate]]\nid = "c{k}"\nlabel = "valid"{reference}\npatch = "candidates/c{k}.diff"\n')
    (out / "prism.toml").write_text("\n".join(entries))
    return out


def disk_bytes(trees: list[Path]) -> tuple[int, int, int]:
    """(files in one tree, bytes of one tree, bytes of all trees with each inode counted once)."""
    seen: set[tuple[int, int]] = set()
    unique = 0
    files = size = 0
    for n, tree in enumerate(trees):
        for folder, _, names in os.walk(tree):
            for name in names:
                st = os.lstat(os.path.join(folder, name))
                if n == 0:
                    files += 1
                    size += st.st_size
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    unique += st.st_size
    return files, size, unique


def say(line: str) -> None:
    print(line, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", type=Path)
    ap.add_argument("--module", required=True, help="the test module, relative to the repository")
    ap.add_argument("--target", required=True, help="the file the candidates change")
    ap.add_argument("--programs", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="warm panels")
    ap.add_argument("--naive-repeat", type=int, default=3, help="naive loops (each runs every program)")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="prism-repo-speed-"))
    task = load_task(make_task(args.repo.resolve(), args.target, args.programs, work / "task", args.timeout))
    suite = Suite(args.module, (task.initial / args.module).read_text())
    options = RunOptions(sandbox="bubblewrap")
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores", flush=True)
    cold_start = time.perf_counter()
    with EngineSession(work / "cache") as engine:
        first = engine.run(task, suite, options)
        cold_ms = (time.perf_counter() - cold_start) * 1000
        outcomes = [first.baseline.outcome] + [r.outcome for _, r in first.results]
        trees = [engine.cache.baseline(task).path] + [engine.cache.candidate(task, c).path for c in task.candidates]
        say(f"programs: {len(trees)} (outcomes {outcomes}); {args.module}: {len(first.baseline.tests)} tests")
        say(f"cold first result (a new engine: sandboxes, trees, the panel): {cold_ms:.0f} ms")
        files, size, unique = disk_bytes(trees)
        say(
            f"trees: {files} files, {size / 1e6:.1f} MB each; on disk {unique / 1e6:.1f} MB for all {len(trees)}"
            f" ({len(trees)} copies: {size * len(trees) / 1e6:.1f} MB)"
        )
        warm = [engine.run(task, suite, options).elapsed_ms for _ in range(args.repeat)]
    w = statistics.median(warm)
    say(f"warm panel: {w:.0f} ms, median of {[round(x) for x in warm]}")
    for label, free in (("plugin-free", True), ("plugins", False)):
        one = [naive_panel(trees[:1], suite, naive_env(free)) for _ in range(args.naive_repeat)]
        say(
            f"one plain pytest, {label}: {statistics.median(one):.0f} ms; cold / it {cold_ms / statistics.median(one):.1f}x"
        )
    for label, free in (("plugin-free", True), ("plugins", False)):
        loop = [naive_panel(trees, suite, naive_env(free)) for _ in range(args.naive_repeat)]
        n = statistics.median(loop)
        say(f"naive loop, {label}: {n:.0f} ms, median of {[round(x) for x in loop]}; naive / warm {n / w:.1f}x")
    say(f"load average at end: {os.getloadavg()[0]:.1f}")
    remove_tree(work)


if __name__ == "__main__":
    main()

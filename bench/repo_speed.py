"""A real repository's test module on a seven-program panel: tree sharing and warm speed.

    python bench/repo_speed.py PATH --module tests/test_more.py --target more_itertools/more.py

PATH is a git repository you fetched (nothing of it is committed here). The task is made in a
temporary folder: the initial state is the repository's tracked files at HEAD (`git archive`),
and six candidates each add one line to `--target` (a `pass` before a `return`: a change to
that function's body, which a one-test edit's selection sees as a real fix's, while the timing of a
panel does not depend on its verdicts). Printed, measured in this one run:

- trees: files and bytes per tree, and the bytes the seven cached trees hold on disk (inodes
  counted once) against seven copies, what each tree cost before candidates shared files;
- the warm panel (runners started, trees built: what the server and `prism score` see), median
  of `--repeat`, against the naive loop of one plain `python -m pytest` process per program in
  turn, with this interpreter's plugins autoloading and plugin-free
  (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`); both loops are `bench/panel_speed.naive_panel`;
- the cold first result (a new engine: sandboxes started, trees built, the panel run) against
  one plain pytest process on the initial program;
- the cold first result in the editor: a new `python -m prism_lsp` over stdio (`lsp_latency.Bench`,
  its own empty cache) opening the module, from the server's start to the first status counting
  programs in (the initial program's and the reference's findings are published just before it)
  and to the whole panel's, against the same plain pytest process; then one-test edits on that
  server against the same edits on a function-level task (mean-rounded) on another.
"""

from __future__ import annotations

import argparse
import asyncio
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

from lsp_latency import Bench  # noqa: E402
from lsp_latency import session as small_session  # noqa: E402
from panel_speed import naive_panel  # noqa: E402
from table import naive_env  # noqa: E402

from prism_lsp.analysis.suite_map import parse_suite  # noqa: E402
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
        indent = old[: len(old) - len(old.lstrip())]
        patch = f"--- a/{target}\n+++ b/{target}\n@@ -{i + 1},1 +{i + 1},2 @@\n+{indent}pass  # candidate {k}\n {old}"
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


def edit_first_test(text: str, i: int) -> str:
    """Change the `def` line of the module's first test (a trailing comment: its meaning stays, its hash
    changes), so one test reruns, a test of the module's usual cost (the last assertion of a module,
    `lsp_latency.one_test_edit`'s, may sit in a slow test or in one that five classes inherit)."""
    line = parse_suite(text).tests[0].name_span.start_line
    lines = text.split("\n")
    lines[line - 1] = lines[line - 1].split("  # bench")[0] + f"  # bench {i}"
    return "\n".join(lines)


def editor_session(task_root: Path, module: str, cache: Path, edits: int) -> dict[str, float]:
    """A new server opening `module` of the task's initial program: ms from the server's start to
    `initialize`'s answer (`ready`), to the first result (`first`: the first status counting programs
    in) and to the panel's settled status (`panel`); then the median of `edits` one-test edits
    (`edit_first_test`: didChange to the settled publication, `edit`), the code lens request after each
    (`lenses`: ms, median; `lens_count`); and the same edits' median on a function-level task (the fixture mean-rounded) on another new server (`function_edit`)."""

    async def session() -> dict[str, float]:
        start = time.perf_counter()
        bench = Bench({**os.environ, "PRISM_CACHE_DIR": str(cache)})
        await bench.start()
        ready = time.perf_counter()
        path = task_root / "initial" / module
        text = path.read_text()
        uri = bench.open(path, text)
        settled = await bench.wait(uri, 1)
        first = bench.first_in.get(uri, settled)
        times, lenses = [], []
        for i in range(edits):
            times.append(await bench.change(uri, 2 + i, edit_first_test(text, i)))
            lenses.append(await bench.lenses(uri))  # VS Code asks for them after every run
        await bench.stop()
        small = await small_session("mean-rounded", False, edits, str(cache))
        return {
            "ready": (ready - start) * 1000,
            "first": (first - start) * 1000,
            "panel": (settled - start) * 1000,
            "edit": statistics.median(times),
            "lenses": statistics.median(ms for ms, _ in lenses),
            "lens_count": lenses[-1][1],
            "function_edit": statistics.median(small["one"]),
        }

    return asyncio.run(session())


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
    ap.add_argument("--edits", type=int, default=5, help="one-test edits in the editor (each side)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="prism-repo-speed-"))
    task = load_task(make_task(args.repo.resolve(), args.target, args.programs, work / "task", args.timeout))
    suite = Suite(args.module, (task.initial / args.module).read_text())
    options = RunOptions(sandbox="bubblewrap")
    print(f"load average at start: {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores", flush=True)
    editor = editor_session(work / "task", args.module, work / "editor-cache", args.edits)
    say(
        f"editor, a new server: initialize {editor['ready']:.0f} ms, first result {editor['first']:.0f} ms,"
        f" the whole panel {editor['panel']:.0f} ms"
    )
    say(
        f"editor, one-test edit of {args.module}: {editor['edit']:.0f} ms (median of {args.edits}); the same edit"
        f" on mean-rounded (function-level, 11 programs): {editor['function_edit']:.0f} ms;"
        f" ratio {editor['edit'] / editor['function_edit']:.1f}x"
    )
    say(f"editor, code lenses after each edit: {editor['lenses']:.0f} ms a request ({editor['lens_count']:.0f} lenses)")
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
        plain = statistics.median(one)
        say(
            f"one plain pytest, {label}: {plain:.0f} ms; cold engine / it {cold_ms / plain:.1f}x;"
            f" editor's first result / it {editor['first'] / plain:.1f}x"
        )
    for label, free in (("plugin-free", True), ("plugins", False)):
        loop = [naive_panel(trees, suite, naive_env(free)) for _ in range(args.naive_repeat)]
        n = statistics.median(loop)
        say(f"naive loop, {label}: {n:.0f} ms, median of {[round(x) for x in loop]}; naive / warm {n / w:.1f}x")
    say(f"load average at end: {os.getloadavg()[0]:.1f}")
    remove_tree(work)


if __name__ == "__main__":
    main()

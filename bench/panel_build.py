"""Panel building: time per fixture-sized task, and the teaching value of the kept mutants.

For each fixture task: `panel build` (default options: 5 mutants, seed 0) into a copy, timed
from a cold engine (runners started, trees built) to the written manifest; then the task's
weak suite runs on the built panel, and the share of kept mutants it accepts is what the
panel teaches: bugs a weak suite lets through. Tasks without a verifier are labelled by
witnesses against their valid candidates.

    python bench/panel_build.py [--tasks top-tags mean-rounded] [--sandbox bubblewrap] [--repository]

Goal: build ≤ 30 s per task on 2 cores. `--repository` adds the row of a task made by `prism init`
from a one-line fix in a 340-line module of ~1,000 mutation sites (the repository of
`tests/panel/test_build_on_a_repository.py`, made with real git commits): goal ≤ 60 s, ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.panel.build import BuildOptions, build_panel, write_panel  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402


def repository_row(tmp: Path, sandbox: str) -> None:
    """`prism init --base --fix` on the test repository, then a timed `panel build` of it."""
    import resource

    from prism_lsp.cli import prism_main
    from tests.panel import textkit_repo as r
    from tests.repo.gitrepo import commit, make_repo, write

    repo = make_repo(
        tmp / "textkit",
        {
            "pyproject.toml": r.PYPROJECT,
            "src/textkit/__init__.py": "",
            "src/textkit/inflect.py": r.INFLECT,
            "tests/test_inflect.py": r.OWN_TESTS,
        },
    )
    write(repo, {"src/textkit/inflect.py": r.FIXED, "tests/test_singular.py": r.REGRESSION})
    commit(repo, "singularize: a word ending in ss is already singular")
    assert prism_main(["init", str(repo), "--base", "HEAD~1", "--fix", "HEAD"]) == 0
    start = time.perf_counter()
    with EngineSession(tmp / "cache" / "textkit") as session:
        task = load_task(repo)
        result = build_panel(session, task, BuildOptions(sandbox=sandbox, progress=print))
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"| textkit (prism init, one-line fix) | {result.labelled_by} | {result.sites} sites, {result.tried} tried "
        f"| {len(result.kept)} | {seconds:.1f} s | host peak RSS {rss:.0f} MB |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sandbox", default="bubblewrap")
    ap.add_argument("--tasks", nargs="*", help="fixture task ids (default: all)")
    ap.add_argument("--repository", action="store_true", help="only the row of a task made by `prism init`")
    args = ap.parse_args()
    if args.repository:
        with tempfile.TemporaryDirectory(prefix="prism-bench-build-") as tmp:
            repository_row(Path(tmp), args.sandbox)
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="prism-bench-build-") as tmp:
        for manifest in sorted((ROOT / "fixtures").glob("*/prism.toml")):
            name = manifest.parent.name
            if args.tasks and name not in args.tasks:
                continue
            work = Path(tmp) / name
            shutil.copytree(manifest.parent, work)
            start = time.perf_counter()
            with EngineSession(Path(tmp) / "cache" / name) as session:
                task = load_task(work)
                result = build_panel(session, task, BuildOptions(sandbox=args.sandbox))
                built = write_panel(task, result)
                seconds = time.perf_counter() - start
                weak = work / "suites" / "test_weak.py"
                suite = Suite(built.suite_rel(weak), weak.read_text())
                report = session.report(built, suite, RunOptions(sandbox=args.sandbox))
            kept = {k.id for k in result.kept}
            accepted = sum(c.verdict == "accepted" for c in report.candidates if c.id in kept)
            rows.append((name, result.labelled_by, result.generated, len(kept), seconds, accepted))
            print(
                f"{name}: {seconds:.1f} s, {result.generated} mutants, {len(kept)} kept "
                f"({result.labelled_by}), weak suite accepts {accepted}",
                flush=True,
            )
    print()
    print("| task | labels by | mutants | kept | build | kept mutants the weak suite accepts |")
    print("|---|---|---|---|---|---|")
    for name, by, generated, kept, seconds, accepted in rows:
        share = f"{accepted}/{kept} ({accepted / kept:.0%})" if kept else "–"
        print(f"| {name} | {by} | {generated} | {kept} | {seconds:.1f} s | {share} |")
    total_kept = sum(r[3] for r in rows)
    total_acc = sum(r[5] for r in rows)
    print(
        f"| **all** | | | {total_kept} | median **{statistics.median(r[4] for r in rows):.1f} s**, "
        f"max {max(r[4] for r in rows):.1f} s | {total_acc}/{total_kept} "
        f"({total_acc / max(total_kept, 1):.0%}) |"
    )


if __name__ == "__main__":
    main()

"""`prism score`: wiring only -- pairs from the command line, a progress bar, then the reports asked for.

Exit status: 0 when every pair was scored, 1 when some pair is an error row (the others are
still scored and reported), 2 for a usage error (from `prism_main`), 130 on Ctrl-C (what was
finished is in `--out`, and a rerun resumes from there).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from prism_lsp.scoring import ScoreOptions, discover_pairs, score
from prism_lsp.scoring.aggregate import summary_json
from prism_lsp.scoring.job import HASH_SEED, JobOptions


class _Bar:
    """The live progress line: pairs done / total, rate, ETA, errors so far (on stderr, terminals only)."""

    def __init__(self, err: Console):
        self.progress = Progress(
            TextColumn("scoring"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("[red]{task.fields[errors]}"),
            console=err,
            transient=True,
            disable=not err.is_terminal,
        )
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int, errors: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task("score", total=total, rate="", errors="")
        speed = self.progress.tasks[0].speed
        self.progress.update(
            self.task,
            completed=done,
            rate=f"{speed:.1f} pairs/s" if speed else "",
            errors=f"{errors} errors" if errors else "",
        )


def score_suites(args, out: Console, err: Console, cache_dir: Path) -> int:
    pairs = discover_pairs(args.pairs, args.suite_name)
    options = ScoreOptions(
        job=JobOptions(sandbox=args.sandbox, timeout_s=args.timeout, repeat=args.repeat),
        engine=args.engine,
        ray_address=args.ray_address,
        workers=args.workers,
        cache_dir=cache_dir,
        out=Path(args.out) if args.out else None,
        force=args.force,
        result_cache=not args.no_cache,
    )
    bar = _Bar(err)
    with bar.progress:
        run = score(pairs, options, progress=bar)
    records = run.records
    if args.junit:
        from prism_lsp.scoring.reports.junit import write_junit

        write_junit(records, Path(args.junit))
    if args.sarif:
        from prism_lsp.scoring.reports.records import source_root
        from prism_lsp.scoring.reports.sarif import write_sarif

        # Paths relative to the checkout the command runs in, as code scanning places alerts.
        write_sarif(records, Path(args.sarif), root=source_root(Path.cwd()), command="score")
    if args.html:
        from prism_lsp.scoring.reports.html import write_html

        write_html(records, Path(args.html))
    if args.json:
        print(json.dumps(summary_json(records, HASH_SEED), indent=2))
    else:
        from prism_lsp.scoring.reports.table import render_table

        render_table(records, out)
        if args.out:
            out.print(
                f"{run.scored} pairs scored now, {run.reused} reused from {args.out}", highlight=False, markup=False
            )
    return 1 if run.errors else 0

"""The report files any run can write (`--sarif`, `--junit`, `--mutation-report`; the options are
`cli.add_report_options`) and, in GitHub Actions, its annotations and step summary: one way for
`prism run` and `prism gate`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def write_reports(
    records: list[dict],
    args: argparse.Namespace,
    *,
    command: str,
    root: Path,
    title: str,
    checks: list[str] | None = None,
    task=None,
    cache=None,
) -> None:
    """Write what `args` asks for; in GitHub Actions also annotate the suites' lines (on stderr, so a
    `--json` report on stdout stays JSON) and add a table to the step summary. `task` and `cache`
    (its TreeCache) place the mutants of `--mutation-report`."""
    if getattr(args, "mutation_report", None):
        from prism_lsp.console.args import UsageError
        from prism_lsp.scoring.reports.stryker import (
            MutationReportError,
            mutation_report_of_task,
            write_mutation_report,
        )

        try:
            report = mutation_report_of_task(records, task, cache)
        except MutationReportError as exc:
            raise UsageError(f"--mutation-report {args.mutation_report}: {exc}") from None
        write_mutation_report(report, Path(args.mutation_report))
    if getattr(args, "sarif", None):
        from prism_lsp.scoring.reports.sarif import write_sarif

        write_sarif(records, Path(args.sarif), root=root, command=command)
    if getattr(args, "junit", None):
        from prism_lsp.scoring.reports.junit import write_junit

        write_junit(records, Path(args.junit))
    from prism_lsp.scoring.reports.github import emit_github

    emit_github(records, root, title, checks, sys.stderr)

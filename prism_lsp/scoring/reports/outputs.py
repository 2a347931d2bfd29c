"""The report files any run can write (`--sarif`, `--junit`, `--mutation-report`) and, in GitHub
Actions, its annotations and step summary: one set of options for `prism run` and `prism gate`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_report_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--sarif", metavar="FILE", help="write the findings as SARIF 2.1.0 here (GitHub code scanning)")
    sp.add_argument("--junit", metavar="FILE", help="write JUnit XML here (one testcase per program)")


def write_reports(records: list[dict], args: argparse.Namespace, *, command: str, root: Path, title: str,
                  checks: list[str] | None = None) -> None:
    """Write what `args` asks for; in GitHub Actions also annotate the suites' lines (on stderr, so a
    `--json` report on stdout stays JSON) and add a table to the step summary."""
    if getattr(args, "sarif", None):
        from prism_lsp.scoring.reports.sarif import write_sarif

        write_sarif(records, Path(args.sarif), root=root, command=command)
    if getattr(args, "junit", None):
        from prism_lsp.scoring.reports.junit import write_junit

        write_junit(records, Path(args.junit))
    from prism_lsp.scoring.reports.github import emit_github

    emit_github(records, root, title, checks, sys.stderr)

"""The command line's shared pieces: what every `prism` subcommand's parser and handler use.

Argument types (`seconds`, `positive_int`, `repeats`), the one usage error and its exit status,
the cache folder check, how an error is printed, the suite a path names, and the report options of
a run. `cli.py` (the dispatcher) and the subcommands' own modules (console/run.py,
console/panel_cli.py, gate/command.py, mcp_server/) import them from here, never from each other.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from prism_lsp.materialize.cache import default_cache_dir
from prism_lsp.model.manifest import MAX_TIMEOUT_S
from prism_lsp.model.untrusted import plain
from prism_lsp.sandbox.base import default_runners

if TYPE_CHECKING:
    from prism_lsp.model.run import Suite
    from prism_lsp.scheduler.cached_session import CachedSession

USAGE_ERROR = 2


class UsageError(Exception):
    """A command-line value that cannot be used; `prism_main` prints it and exits 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, `error: ...`, like every other error of `prism`."""

    def error(self, message: str):
        # argparse would print the whole usage block first; one line is what CI logs and scripts grep.
        self.exit(USAGE_ERROR, f"error: {message} (see `{self.prog} --help`)\n")


def seconds(text: str) -> float:
    """argparse type of `--timeout`: a finite number of seconds, > 0 and at most the manifest's limit."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    # 0 would silently mean "the manifest's value", a negative one times out every program,
    # nan and inf crash the runner's clock: all are mistakes to report before running.
    if not (0 < value <= MAX_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds greater than 0 and at most {MAX_TIMEOUT_S}, got {text!r}"
        )
    return value


MAX_REPEAT = 20  # each seed is a whole panel run (and its own warm runners)


def repeats(text: str) -> int:
    """argparse type of `--repeat`: a whole number from 1 to MAX_REPEAT."""
    value = positive_int(text)
    if value > MAX_REPEAT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_REPEAT} runs, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type of `--workers`: a whole number, at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number, at least 1, got {text!r}")
    return value


def usable_cache_dir(value: str | None) -> Path:
    """The cache folder to use (`--cache-dir`, else $PRISM_CACHE_DIR, else the default), checked.

    Creates it and writes in it once, so an unusable folder is one clear `UsageError`
    naming the folder and the reason, rather than a failed build for every program.
    """
    path = Path(value) if value else default_cache_dir()
    origin = "--cache-dir" if value else "PRISM_CACHE_DIR" if os.environ.get("PRISM_CACHE_DIR") else "default"
    where = f"cache folder {path} ({origin})"
    if path.exists() and not path.is_dir():
        raise UsageError(f"{where} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the {where}: {exc.strerror or exc}") from None
    try:
        # A folder, as the cache builds trees in temporary folders; os.access would not do, as root passes it.
        probe = tempfile.mkdtemp(prefix=".prism-write-check-", dir=path)
    except OSError as exc:
        raise UsageError(f"cannot write in the {where}: {exc.strerror or exc}") from None
    shutil.rmtree(probe, ignore_errors=True)
    return path


def fail(console: Console, message: str) -> int:
    # The message may hold paths, TOML keys (`[tool.prism]`) or a task folder's text: never markup,
    # never control sequences.
    console.print(f"[bold red]error:[/] {escape(plain(message))}", highlight=False)
    return USAGE_ERROR


def suite_for(task, suite_path: Path) -> Suite:
    # Imported here, not at the top: `prism run` starts its runners before it loads the panel
    # and report modules, which then import while the sandboxes come up.
    from prism_lsp.model.run import Suite

    return Suite(task.suite_rel(suite_path), suite_path.read_text(encoding="utf-8"))


def add_report_options(sp: argparse.ArgumentParser) -> None:
    """`--sarif`, `--junit`, `--mutation-report` of one run (`prism run`, `prism gate`); written by
    `scoring.reports.outputs` (imported only when a run writes them)."""
    sp.add_argument("--sarif", metavar="FILE", help="write the findings as SARIF 2.1.0 here (GitHub code scanning)")
    sp.add_argument("--junit", metavar="FILE", help="write JUnit XML here (one testcase per program)")
    sp.add_argument(
        "--mutation-report",
        metavar="FILE",
        help="write the invalid candidates as mutants in Stryker's mutation-testing-report-schema JSON "
        "(mutation-testing-elements, Stryker Dashboard; reveal full only)",
    )
    add_no_cache(sp)


def add_no_cache(sp: argparse.ArgumentParser) -> None:
    """`--no-cache` of a command whose results last on disk."""
    sp.add_argument(
        "--no-cache",
        action="store_true",
        help="run every test on every program again, and keep no results on disk (<cache>/results/)",
    )


def cached_session(cache_dir: Path, args: argparse.Namespace, near: Path, err: Console) -> CachedSession:
    """The session of one command whose results last (`<cache>/results/`, unless `--no-cache`)."""
    from prism_lsp.scheduler.cached_session import CachedSession, open_results

    results, note = open_results(cache_dir, enabled=not args.no_cache, near=near)
    if note:
        err.print(f"note: {escape(note)}", style="yellow", highlight=False)
    return CachedSession(cache_dir, args.workers or default_runners(long_lived=False), results=results)

"""`prism run` and `prism suggest`: one panel run of a suite (its report, or verified edits of it).

Both take TASK [SUITE] and the options of one run; the heavy modules (the panel, the report, witness
search) load only once the run's sandboxes are starting.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.console.args import (
    MAX_REPEAT,
    UsageError,
    add_report_options,
    cached_session,
    fail,
    positive_int,
    repeats,
    seconds,
    suite_for,
    usable_cache_dir,
)
from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.reveal import PANEL_SHOWN_AT, WITNESSES_SHOWN_AT, strictest
from prism_lsp.judge.weak_findings import weak_assertion_findings
from prism_lsp.model.reveal import REVEAL_LEVELS
from prism_lsp.sandbox.base import default_runners
from prism_lsp.sandbox.select import NAMES as SANDBOXES
from prism_lsp.tasks import find_task_root, load_task


def _task_and_suite(args: argparse.Namespace):
    """(task, suite path) of `prism run|suggest TASK [SUITE]`; UsageError when either is missing."""
    suite_path = Path(args.suite if args.suite else args.task)
    task_dir = Path(args.task) if args.suite else find_task_root(suite_path)
    if task_dir is None:
        raise UsageError(f"no prism.toml found above {suite_path}; pass the task folder first")
    if not suite_path.is_file():
        raise UsageError(f"suite {suite_path} does not exist")
    return load_task(task_dir), suite_path


def cmd_run(args: argparse.Namespace, out: Console, err: Console) -> int:
    task, suite_path = _task_and_suite(args)
    from prism_lsp.model.project_config import apply_defaults, project_config

    # The command line over the project's [tool.prism] (nearest pyproject.toml above the suite).
    apply_defaults(args, project_config(suite_path.parent), ("sandbox", "reveal", "timeout", "workers"))
    suite = suite_for(task, suite_path)
    problem = parse_suite(suite.text).problem  # too large or nested too deeply: bounded work, one message
    if problem is not None:
        return fail(err, f"suite {suite_path} not run: {problem}")
    cache_dir = usable_cache_dir(args.cache_dir)
    options = RunOptions(sandbox=args.sandbox, timeout_s=args.timeout, reveal=args.reveal, repeat=args.repeat)
    with cached_session(cache_dir, args, suite_path, err) as session:
        session.start(task, options.sandbox)  # the sandboxes come up while the rest is imported
        from prism_lsp.witness.report import report_with_witnesses

        _, report = report_with_witnesses(session, task, suite, options, weak_assertion_findings(suite.text))
        report.cache = session.cache_out()
    from prism_lsp.scoring.reports.outputs import write_reports
    from prism_lsp.scoring.reports.records import record_of, source_root

    write_reports(
        [record_of(report, suite_path)],
        args,
        command="run",
        root=source_root(suite_path),
        title=f"prism run {report.task}",
        task=task,
        cache=session.cache,
    )
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        from prism_lsp.console.render import render_report

        render_report(report, out)
    # At `sealed` nothing may depend on the panel, the exit status neither: 0 once the run completed.
    return 0 if report.metrics.jsf or report.reveal not in PANEL_SHOWN_AT else 1


def cmd_suggest(args: argparse.Namespace, out: Console, err: Console) -> int:
    task, suite_path = _task_and_suite(args)
    reveal = strictest(args.reveal, task.reveal)
    if reveal not in WITNESSES_SHOWN_AT:
        raise UsageError(f"reveal level `{reveal}` shows no suggestions (there the panel is an answer key)")
    options = RunOptions(sandbox=args.sandbox, timeout_s=args.timeout, reveal=args.reveal)
    with EngineSession(usable_cache_dir(args.cache_dir), args.workers or default_runners(long_lived=False)) as session:
        session.start(task, options.sandbox)  # the sandboxes come up while the rest is imported
        from prism_lsp.console.suggest import run_suggest

        return run_suggest(
            task, suite_path, suite_for(task, suite_path), session, options, out, as_json=args.json, write=args.write
        )


def _panel_run(sp: argparse.ArgumentParser, suite_help: str, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """TASK [SUITE] and the options of one panel run (`run`, `suggest`)."""
    sp.add_argument("task", help="task folder (holding prism.toml), or the suite alone")
    sp.add_argument("suite", nargs="?", help=suite_help)
    sp.add_argument("--sandbox", choices=SANDBOXES, help="override the manifest's sandbox")
    sp.add_argument("--timeout", type=seconds, help="seconds per program run, > 0 (overrides the manifest)")
    sp.add_argument(
        "--reveal",
        choices=REVEAL_LEVELS,
        help="what the run shows of the panel (the manifest's level can only lower it)",
    )
    sp.add_argument("--workers", type=positive_int, help="programs run at once, >= 1 (default: cores)")
    common(sp)


def add_run_parsers(sub: argparse._SubParsersAction, common: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register `run` and `suggest` (one panel run each) on `prism`'s sub-parsers."""
    run = sub.add_parser("run", help="run a suite on the initial program and the panel")
    _panel_run(run, "the pytest file to judge", common)
    add_report_options(run)
    run.add_argument(
        "--repeat",
        type=repeats,
        default=1,
        help=f"run every program under N hash seeds (0..N-1), 1..{MAX_REPEAT}; a test with two "
        "outcomes is reported unstable (default 1: only failures on valid candidates are rerun)",
    )
    run.set_defaults(func=cmd_run)

    sug = sub.add_parser("suggest", help="verified edits of the suite that fix its findings (diffs; --write applies)")
    _panel_run(sug, "the pytest file to improve", common)
    sug.add_argument("--write", action="store_true", help="write the suggestions into the suite file")
    sug.set_defaults(func=cmd_suggest)

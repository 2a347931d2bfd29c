"""`prism panel build|label|check|sensitivity`: argument wiring over `prism_lsp.panel` and its console views.

Thin, like `cli.py`: parse, check the optional libraries are there, call the core, print.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from prism_lsp.console.args import UsageError, positive_int, seconds, usable_cache_dir
from prism_lsp.console.args import fail as _fail
from prism_lsp.console.args import suite_for as _suite_for
from prism_lsp.sandbox.select import NAMES as SANDBOXES
from prism_lsp.tasks import load_task


def _needs(module: str, what: str) -> None:
    """A `UsageError` naming the extra to install when an optional library is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        # A command that works from where the user is: Prism is not on a package index, so no extra.
        raise UsageError(f"{what} needs {module}: {sys.executable} -m pip install {module}")


def _panel_task(args: argparse.Namespace):
    """The task to work on: TASK itself, or a copy of it at `--out` (TASK is then left untouched)."""
    task = load_task(Path(args.task))
    if getattr(args, "out", None):
        from prism_lsp.panel.write import copy_task

        task = copy_task(task, Path(args.out))
    return task


def cmd_panel_label(args: argparse.Namespace, out: Console, err: Console) -> int:
    from prism_lsp.console.panel_label import label_rows

    rows = Path(args.rows)
    if not rows.is_file():
        return _fail(err, f"rows file {rows} does not exist")
    return label_rows(
        _panel_task(args),
        rows,
        usable_cache_dir(args.cache_dir),
        out,
        sandbox=args.sandbox,
        timeout_s=args.timeout,
        as_json=args.json,
    )


def cmd_panel_build(args: argparse.Namespace, out: Console, err: Console) -> int:
    _needs("libcst", "prism panel build")
    from prism_lsp.console.panel_build import build_command
    from prism_lsp.panel.build import BuildOptions

    samples = Path(args.from_samples) if args.from_samples else None
    if samples is not None and not samples.is_file():
        return _fail(err, f"samples file {samples} does not exist")
    options = BuildOptions(
        max_invalid=args.max_invalid,
        seed=args.seed,
        sandbox=args.sandbox,
        timeout_s=args.timeout,
        mutate=args.mutate,
        budget_s=args.budget_s,
        started=args.started,
    )
    task = _panel_task(args)
    code = build_command(task, usable_cache_dir(args.cache_dir), out, options, as_json=args.json)
    if samples is None:
        return code
    from prism_lsp.console.panel_label import label_rows

    # Alternative fixes (colleagues', a model's) join the panel as labelled samples, after the mutants.
    labelled = label_rows(
        load_task(task.root),
        samples,
        usable_cache_dir(args.cache_dir),
        out,
        sandbox=args.sandbox,
        timeout_s=args.timeout,
        as_json=args.json,
    )
    return max(code, labelled)


def cmd_panel_sensitivity(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.plot:
        _needs("matplotlib", "--plot")
    from prism_lsp.console.sensitivity import run_sensitivity

    suite_path = Path(args.suite)
    if not suite_path.is_file():
        return _fail(err, f"suite {suite_path} does not exist")
    task = load_task(Path(args.task))
    return run_sensitivity(
        task,
        _suite_for(task, suite_path),
        usable_cache_dir(args.cache_dir),
        out,
        sandbox=args.sandbox,
        timeout_s=args.timeout,
        plot=Path(args.plot) if args.plot else None,
        as_json=args.json,
    )


def add_panel_parser(sub, common, cmd_check) -> None:
    """`prism panel build|label|check|sensitivity` on `prism`'s sub-parsers (`check` is `prism check`)."""
    panel = sub.add_parser("panel", help="build, label, check and size a task's panel")
    psub = panel.add_subparsers(dest="panel_command", required=True)

    def engine_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--sandbox", choices=SANDBOXES, help="override the manifest's sandbox")
        sp.add_argument("--timeout", type=seconds, help="seconds per program run, > 0 (overrides the manifest)")
        common(sp)

    build = psub.add_parser(
        "build",
        help="add invalid candidates made from mutants of the reference, labelled by the verifier, each with a witness",
    )
    build.add_argument("task")
    build.add_argument("--max-invalid", type=positive_int, default=5, help="mutants to keep (default 5)")
    build.add_argument("--seed", type=int, default=0, help="the same seed gives the same panel (default 0)")
    build.add_argument("--out", help="write into a copy of the task at this new folder instead of the task")
    build.add_argument(
        "--mutate",
        choices=("auto", "changed", "all"),
        default="auto",
        help="where to mutate: `auto` (default), for a task made by `prism init`, the lines the reference "
        "changed (where the bug was), widened to the body of the function holding each when they give "
        "fewer than 3 mutants, and for other tasks every line of the files it changed; `changed`: strictly "
        "the changed lines, never widened; `all`: every line of the changed files",
    )
    build.add_argument(
        "--budget-s",
        type=seconds,
        default=60.0,
        help="seconds the whole command may take (default 60), its start and the task copy included: past it, the mutants kept so far make the panel, with a note",
    )
    build.add_argument(
        "--from-samples",
        metavar="FILE",
        help="also label these implementations (jsonl rows, as `prism panel label`) into the panel",
    )
    engine_options(build)
    build.set_defaults(func=cmd_panel_build)

    label = psub.add_parser(
        "label",
        help="label implementations from a jsonl file ({id, code} or {id, patch} "
        "rows) with the verifier and add them to the panel",
    )
    label.add_argument("task")
    label.add_argument("rows", help="JSON lines, one implementation per line")
    label.add_argument("--out", help="write into a copy of the task at this new folder instead of the task")
    engine_options(label)
    label.set_defaults(func=cmd_panel_label)

    pcheck = psub.add_parser("check", help="the same as `prism check`: is the panel fit to judge suites")
    pcheck.add_argument("task")
    pcheck.add_argument("--sandbox", choices=SANDBOXES, help="override the manifest's sandbox")
    common(pcheck)
    pcheck.set_defaults(func=cmd_check)

    sens = psub.add_parser("sensitivity", help="expected joint success of SUITE on every sub-panel size")
    sens.add_argument("task")
    sens.add_argument("suite")
    sens.add_argument("--plot", help="also write the curves as a PNG to this file")
    engine_options(sens)
    sens.set_defaults(func=cmd_panel_sensitivity)

"""Command lines: `prism` (run, suggest, check, score, panel, doctor, import, init, gate, mcp) and `prism-lsp` (the server).

A dispatcher: each sub-command's parser and handler live with its job (console/run.py: run and
suggest; console/panel_cli.py: panel; console/init.py, gate/command.py, tasks/importers/cli.py,
mcp_server/command.py), their shared pieces in console/args.py. Here: the few one-call commands
(check, score, doctor), the parser built from them all, and errors mapped to the exit status.
Exit status of `prism run`: 0 when jsf holds, 1 when it does not, 2 for a usage, manifest or
sandbox error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from prism_lsp.console.args import (
    MAX_REPEAT,
    Parser,
    UsageError,
    positive_int,
    repeats,
    seconds,
    usable_cache_dir,
)
from prism_lsp.console.args import fail as _fail
from prism_lsp.model.manifest import ManifestError
from prism_lsp.panel.errors import VerifierError
from prism_lsp.repo.errors import InitError
from prism_lsp.sandbox import SandboxUnavailable
from prism_lsp.sandbox.select import NAMES as SANDBOXES
from prism_lsp.tasks import load_task


def cmd_check(args: argparse.Namespace, out: Console, err: Console) -> int:
    from prism_lsp.console.panel_check import check_panel

    task = load_task(Path(args.task))
    return check_panel(
        task, out, usable_cache_dir(args.cache_dir), as_json=args.json, sandbox=getattr(args, "sandbox", None)
    )


def cmd_score(args: argparse.Namespace, out: Console, err: Console) -> int:
    from prism_lsp.console.score import score_suites
    from prism_lsp.scoring.run import RayMissing

    try:
        return score_suites(args, out, err, usable_cache_dir(args.cache_dir))
    except RayMissing as exc:
        raise UsageError(str(exc)) from None


def cmd_doctor(args: argparse.Namespace, out: Console, err: Console) -> int:
    from prism_lsp.console.doctor import run_doctor

    return run_doctor(out, as_json=args.json)


def build_parser() -> argparse.ArgumentParser:
    # Sub-parsers inherit the class, so every sub-command reports usage errors the same way.
    p = Parser(prog="prism", description="Judge a pytest suite against a panel of implementations.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
        sp.add_argument("--cache-dir", help="where built program trees and results are cached (default ~/.cache/prism)")

    from prism_lsp.console.run import add_run_parsers

    add_run_parsers(sub, common)

    check = sub.add_parser(
        "check",
        help="check that a task's panel is well formed, every candidate builds, and the panel is fit to judge suites",
    )
    check.add_argument("task")
    check.add_argument("--sandbox", choices=SANDBOXES, help="override the manifest's sandbox")
    common(check)
    check.set_defaults(func=cmd_check)

    score = sub.add_parser(
        "score",
        help="score many suites: TASK:SUITE pairs, a pairs file, or task folders "
        "with --suite-name; locally or on a Ray cluster, resumable",
    )
    score.add_argument(
        "pairs",
        nargs="+",
        help="TASK:SUITE, a suite file, a pairs file (TASK:SUITE per line), "
        "or a folder of task folders (with --suite-name)",
    )
    score.add_argument("--suite-name", help="with task folders: the suite path inside each task")
    score.add_argument("--sandbox", choices=SANDBOXES)
    score.add_argument("--timeout", type=seconds, help="seconds per program run, > 0 (overrides the manifests)")
    score.add_argument(
        "--repeat", type=repeats, default=1, help=f"run every program under N hash seeds, 1..{MAX_REPEAT}"
    )
    score.add_argument("--workers", type=positive_int, help="programs run at once per machine (default: its cores + 1)")
    score.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="where pairs run: this machine (default) or a Ray cluster (pip install -e '.[ray]')",
    )
    score.add_argument("--ray-address", help="with --engine ray: the cluster to join (default: start a local Ray)")
    score.add_argument("--out", help="folder of per-pair JSON reports; a rerun skips the pairs already there")
    score.add_argument("--force", action="store_true", help="with --out: score every pair again")
    score.add_argument("--junit", help="write JUnit XML here (one testsuite per pair, one testcase per program)")
    score.add_argument("--sarif", help="write the findings as SARIF 2.1.0 here")
    score.add_argument("--html", help="write one self-contained HTML page here (rates, kill matrices, findings)")
    common(score)
    score.set_defaults(func=cmd_score)

    from prism_lsp.console.panel_cli import add_panel_parser

    add_panel_parser(sub, common, cmd_check)

    doctor = sub.add_parser("doctor", help="check the sandbox backends and the runner's Python")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(func=cmd_doctor)

    from prism_lsp.console.init import add_init_parser

    add_init_parser(sub)
    from prism_lsp.gate.command import add_gate_parser

    add_gate_parser(sub, common)

    from prism_lsp.tasks.importers.cli import add_import_parser  # first-party: a failure here is a bug, shown

    add_import_parser(sub)
    from prism_lsp.mcp_server.command import add_mcp_parser

    add_mcp_parser(sub)
    return p


def prism_main(argv: list[str] | None = None) -> int:
    """Entry point of `prism`; returns (and exits with) the status documented above."""
    from prism_lsp.console.started import command_started

    started = command_started(own_process=argv is None)  # what a time budget counts from
    from prism_lsp.sandbox.shutdown import install_exit_on_signals

    install_exit_on_signals()  # SIGTERM/SIGHUP exit normally, so atexit removes Docker containers
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 140)
    # Errors are never wrapped: a path broken over two lines cannot be pasted or grepped.
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.started = started
    try:
        code = args.func(args, out, err)
    except (ManifestError, UsageError, InitError, VerifierError) as exc:
        code = _fail(err, str(exc))
    except SandboxUnavailable as exc:
        code = _fail(err, str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        code = _fail(err, str(exc))
    except KeyboardInterrupt:
        # Ctrl-C is the user's choice, not a crash: no traceback; runners and containers are
        # removed by the sessions' own cleanup on the way out.
        err.print("interrupted", style="bold red")
        code = 130
    if argv is None:
        sys.exit(code)
    return code


def lsp_main(argv: list[str] | None = None) -> None:
    """Entry point of `prism-lsp`: the language server over stdio (or --tcp).

    `--stdio` is accepted and ignored: stdio is the default, and many clients
    (vscode-languageclient's stdio transport among them) pass it anyway.
    """
    from prism_lsp.sandbox.shutdown import install_exit_on_signals
    from prism_lsp.server.app import main

    install_exit_on_signals()  # SIGTERM/SIGHUP exit normally, so atexit removes Docker containers
    args = sys.argv[1:] if argv is None else argv
    main([a for a in args if a != "--stdio"])

"""`prism mcp` on the `prism` command line: its arguments only. The server and everything it
imports (the engine, witness search, the MCP SDK) load when the command runs, so other commands
never pay for them."""

from __future__ import annotations

import argparse

from prism_lsp.model.reveal import REVEAL_LEVELS
from prism_lsp.model.sandbox import SANDBOX_NAMES


def _runs(text: str) -> int:
    """argparse type of `--budget`: a whole number of runs, at least 1."""
    from prism_lsp.console.args import positive_int

    return positive_int(text)


def add_mcp_parser(sub) -> None:
    """`prism mcp` on the `prism` command line."""
    p = sub.add_parser("mcp", help="serve Prism's tools to coding agents over MCP (stdio)")
    p.add_argument(
        "--root",
        action="append",
        default=None,
        help="a folder whose tasks agents may name (repeatable; default: the current folder)",
    )
    p.add_argument(
        "--reveal",
        choices=REVEAL_LEVELS,
        default="sealed",
        help="what agents may learn of the panel (default sealed: only the initial program's outcome "
        "and the static hints; a task's own level can only lower it)",
    )
    p.add_argument(
        "--budget",
        type=_runs,
        default=None,
        metavar="N",
        help="at most N runs per task, counted in the cache folder across restarts (default: no limit)",
    )
    p.add_argument("--sandbox", choices=SANDBOX_NAMES)
    p.add_argument("--cache-dir")
    p.set_defaults(func=_cmd_mcp)


def _cmd_mcp(args: argparse.Namespace, out, err) -> int:
    from prism_lsp.mcp_server.app import cmd_mcp

    return cmd_mcp(args, out, err)

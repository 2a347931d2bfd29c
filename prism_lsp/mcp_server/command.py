"""`prism mcp` on the `prism` command line: its arguments only. The server and everything it
imports (the engine, witness search, the MCP SDK) load when the command runs, so other commands
never pay for them."""

from __future__ import annotations

import argparse


def add_mcp_parser(sub) -> None:
    """`prism mcp` on the `prism` command line."""
    p = sub.add_parser("mcp", help="serve Prism's tools to coding agents over MCP (stdio)")
    p.add_argument("--root", action="append", default=None,
                   help="a folder whose tasks agents may name (repeatable; default: the current folder)")
    p.add_argument("--reveal", choices=("full", "labels", "counts"), default="counts",
                   help="what agents may learn of the panel (default counts; a task's own level can only lower it)")
    p.add_argument("--sandbox", choices=("auto", "bubblewrap", "docker", "none"))
    p.add_argument("--cache-dir")
    p.set_defaults(func=_cmd_mcp)


def _cmd_mcp(args: argparse.Namespace, out, err) -> int:
    from prism_lsp.mcp_server.app import cmd_mcp

    return cmd_mcp(args, out, err)

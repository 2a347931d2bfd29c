"""`prism init`: print what the task made of a fix holds, or scaffold a function-level task."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from prism_lsp.repo.errors import InitError


def _list(items: list[str]) -> str:
    return ", ".join(items) if items else "none"


def cmd_init(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.scaffold:
        from prism_lsp.repo.scaffold import scaffold_task

        if not args.reference:
            raise InitError("--scaffold DIR needs --reference FILE (the reference solution, one Python file)")
        task = scaffold_task(Path(args.scaffold), Path(args.reference), statement=args.statement or "")
        out.print(
            f"scaffolded task {escape(task.id)} in {escape(str(task.root))}: initial stub, reference, "
            "an empty verifier and suite; write the suite, then `prism run` it",
            highlight=False,
        )
        return 0
    if args.reference:
        raise InitError("--reference goes with --scaffold DIR; a task from a fix takes its reference from git")
    from prism_lsp.repo.init import init_task

    r = init_task(Path(args.path), base=args.base, fix=args.fix, statement=args.statement)
    verb = "updated" if r.updated else "made"
    lines = [
        f"{verb} the task at {r.root / 'prism.toml'} (files in .prism/, listed in .git/info/exclude)",
        f"  reference: the fix's changes to {_list(r.reference)}",
        f"  suites:    {_list(r.suites)}",
    ]
    if r.support:
        lines.append(f"  test files joining the initial state: {_list(r.support)}")
    if r.generated:
        lines.append(f"  generated files carried into every tree: {_list(r.generated)}")
    if r.pythonpath:
        lines.append(f"  import roots first on sys.path: {_list(r.pythonpath)}")
    lines.append(f"  python:    {r.venv_note}")
    if r.kept:
        lines.append(f"  kept candidates: {_list(r.kept)}")
    for rel in r.suites:
        lines.append(f"run: prism run {r.root / rel}")
    lines += [f"note: {n}" for n in r.notes]
    for line in lines:
        out.print(escape(line), highlight=False, soft_wrap=True)
    return 0


def add_init_parser(sub) -> None:
    init = sub.add_parser("init", help="make a task from the bug fix in a git repository (or --scaffold one)")
    init.add_argument("path", nargs="?", default=".", help="a folder of the repository (default: here)")
    init.add_argument("--base", help="the revision before the fix (default: HEAD, or the fix's parent)")
    init.add_argument("--fix", help="the commit holding the fix (default: the working tree)")
    init.add_argument("--statement", help="the task statement (default: the fix's commit message)")
    init.add_argument("--scaffold", metavar="DIR", help="instead: make a function-level task folder in DIR")
    init.add_argument("--reference", metavar="FILE", help="with --scaffold: the reference solution")
    init.set_defaults(func=cmd_init)

"""`prism import <format> SRC DEST`: write a native task folder from a benchmark's task.

Exit status 0 on success, 2 for a usage or import problem (printed as file: key: problem).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prism_lsp.tasks.importers import FOLDERS, MANY, REGISTRY, import_all, import_task


def add_import_parser(subparsers) -> None:
    """Register the `import` sub-command on `prism`'s sub-parsers."""
    p = subparsers.add_parser(
        "import",
        help="turn a benchmark task (Terminal-Bench, Harbor, SWE-bench, HumanEval) "
        "into a native prism.toml task folder",
    )
    p.add_argument("format", choices=list(REGISTRY))
    p.add_argument("src", help=f"the task folder ({', '.join(FOLDERS)}) or the .jsonl file ({', '.join(MANY)})")
    p.add_argument(
        "dest",
        help="the task folder to write (must not exist, or be empty); with --all, the folder "
        "that gets one task folder per task",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help=f"import every task of the file ({', '.join(MANY)}) or of "
        f"the dataset folder ({', '.join(FOLDERS)}), one folder each "
        "under DEST",
    )
    p.add_argument(
        "--patch-set",
        help="folder with the panel's patches and patch-set.toml/json "
        "(terminal-bench, harbor; default: next to or inside SRC)",
    )
    p.add_argument("--instance", help="instance_id / task_id to import from a file with several")
    p.add_argument("--repo-path", help="swe-bench: a local clone of the instance's repository")
    p.add_argument("--candidates", help="swe-bench, humaneval: side file (jsonl) with extra labelled candidates")
    p.add_argument("--suite", help="path (inside SRC) of the test file to use as the suite")
    p.add_argument("--test-command", help="judge with this shell command's exit status instead of pytest")
    p.add_argument("--image", help="run in this Docker image instead of building the task's Dockerfile")
    p.add_argument("--no-docker", action="store_true", help="do not carry the task's Dockerfile")
    p.set_defaults(func=cmd_import)


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _import_all(args: argparse.Namespace, out, err) -> int:
    tasks, errors = import_all(
        args.format,
        Path(args.src),
        Path(args.dest),
        instance=args.instance,
        patch_set=_path(args.patch_set),
        repo_path=_path(args.repo_path),
        candidates=_path(args.candidates),
        suite=args.suite,
        test_command=args.test_command,
        use_docker=not args.no_docker,
        image=args.image,
    )
    for exc in errors:
        err.print(f"error: {exc}", markup=False, highlight=False)
    out.print(
        f"imported {len(tasks)} tasks into {args.dest}" + (f"; {len(errors)} could not be imported" if errors else ""),
        markup=False,
    )
    return 2 if errors else 0


def cmd_import(args: argparse.Namespace, out, err) -> int:
    """Run the import; `TaskImportError` propagates to `prism_main`, which prints it and exits 2."""
    if args.all:
        return _import_all(args, out, err)
    task = import_task(
        args.format,
        Path(args.src),
        Path(args.dest),
        patch_set=_path(args.patch_set),
        instance=args.instance,
        repo_path=_path(args.repo_path),
        candidates=_path(args.candidates),
        suite=args.suite,
        test_command=args.test_command,
        use_docker=not args.no_docker,
        image=args.image,
    )
    valid = sum(c.valid for c in task.candidates)
    # Paths are printed as text, not markup: a folder named `[x]` must appear as it is.
    out.print(
        f"imported {task.id}: {len(task.candidates)} candidates ({valid} valid, "
        f"{len(task.candidates) - valid} invalid) into {task.root}",
        markup=False,
    )
    for path in sorted(p for p in task.root.rglob("*") if p.is_file() and _is_suite(task.root, p)):
        out.print(f"  suite: {path}   (prism run {task.root} {path})", markup=False)
    return 0


def _is_suite(root: Path, path: Path) -> bool:
    first = path.relative_to(root).parts[0]
    return first not in ("initial", "candidates", "environment", "prism.toml")

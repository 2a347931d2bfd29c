"""`prism panel build TASK`: add invalid candidates made from mutants of the reference."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Task
from prism_lsp.panel.build import BuildOptions, build_panel, write_panel


def build_command(task: Task, cache_dir: Path, console: Console, options: BuildOptions, *, as_json: bool) -> int:
    """Build and write the mutants. Exit 0 when at least one was kept, 1 when none was.

    Progress lines (sites, batches tried, kept, dropped by reason) go to stderr, so `--json` output
    stays one document."""

    def progress(line: str) -> None:
        print(f"panel build: {line}", file=sys.stderr, flush=True)

    options = replace(options, progress=options.progress or progress)
    with EngineSession(cache_dir) as session:
        result = build_panel(session, task, options)
    written = write_panel(task, result)
    kept: list[dict[str, Any]] = [
        {
            "id": k.id,
            "line": k.mutant.line,
            "file": k.mutant.file,
            "operator": k.mutant.operator,
            "change": k.mutant.description,
            "verifier_failed": list(k.failed),
            "witness": {
                "call": k.witness.assertion_call,
                "expected": k.witness.expected,
                "got": next(iter(k.witness.got.values()), ""),
            },
        }
        for k in result.kept
    ]
    if as_json:
        print(
            json.dumps(
                {
                    "task": written.id,
                    "labelled_by": result.labelled_by,
                    "generated": result.generated,
                    "sites": result.sites,
                    "tried": result.tried,
                    "dropped": dict(sorted(result.dropped.items())),
                    "kept": kept,
                    "notes": result.notes,
                    "seconds": round(result.elapsed_s, 2),
                },
                indent=2,
            )
        )
        return 0 if kept else 1
    if result.labelled_by == "witnesses":
        console.print(
            Text(
                "no verifier in the manifest: labels come from witnesses against the reference and the "
                "other valid candidates (add `[verifier] suite = ...` for labels you can trust)"
            )
        )
    console.print(
        f"{result.sites} mutation sites, {result.generated} mutants of the reference, {result.tried} tried, "
        f"{len(kept)} kept "
        f"in {result.elapsed_s:.1f} s"
    )
    for reason, n in sorted(result.dropped.items()):
        console.print(f"  dropped {n}: {reason}")
    for note in result.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    table = Table(header_style="bold")
    for col in ("candidate", "change", "witness"):
        table.add_column(col)
    for k in kept:
        w = k["witness"]
        table.add_row(
            Text(k["id"]),
            Text(f"line {k['line']}: {k['change']}"),
            Text(f"{w['call']} == {w['expected']}, got {w['got']}"),
        )
    console.print(table)
    console.print(f"written to {written.manifest} ({len(written.candidates)} candidates)")
    return 0 if kept else 1

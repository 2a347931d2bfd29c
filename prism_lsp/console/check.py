"""`prism check TASK`: is the panel well formed and does every candidate build?"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from prism_lsp.materialize import MaterializeError, TreeCache
from prism_lsp.materialize.cache import default_cache_dir
from prism_lsp.materialize.digest import tree_digest
from prism_lsp.model.task import Task
from prism_lsp.model.untrusted import plain


def panel_problems(task: Task, cache: TreeCache) -> list[dict]:
    """One row per candidate: whether its tree builds and differs from the initial state."""
    rows = []
    initial = tree_digest(cache.baseline(task).path)
    for c in task.candidates:
        row = {"id": c.id, "label": c.label, "reference": c.reference, "kind": c.kind, "ok": True, "problem": ""}
        try:
            tree = cache.candidate(task, c)
            if tree_digest(tree.path) == initial:
                row.update(ok=False, problem="identical to the initial state (the diff or overlay changes nothing)")
        except MaterializeError as exc:
            row.update(ok=False, problem=plain(str(exc)))  # may quote the task folder's diff: data only
        rows.append(row)
    valid = sum(c.valid for c in task.candidates)
    if valid < 2:
        rows.append({"id": "(panel)", "ok": True, "problem": "note: only the reference is valid; over-specification cannot be seen"})
    if valid == len(task.candidates):
        rows.append({"id": "(panel)", "ok": True, "problem": "note: no invalid candidates; under-assertion cannot be seen"})
    return rows


def check_panel(task: Task, console: Console, cache_dir: Path | None, as_json: bool = False) -> int:
    rows = panel_problems(task, TreeCache(cache_dir or default_cache_dir()))
    ok = all(r["ok"] for r in rows)
    if as_json:
        print(json.dumps({"task": task.id, "ok": ok, "candidates": rows}, indent=2))
        return 0 if ok else 1
    table = Table(header_style="bold")
    for col in ("candidate", "label", "kind", "builds", "problem"):
        table.add_column(col)
    for r in rows:
        table.add_row(Text(r["id"] + (" (reference)" if r.get("reference") else "")), Text(r.get("label", "")),
                      Text(r.get("kind", "")), "[green]yes[/]" if r["ok"] else "[red]no[/]", Text(r["problem"]))
    console.print(f"[bold]{task.id}[/]: {len(task.candidates)} candidates")
    console.print(table)
    console.print("[green]panel OK[/]" if ok else "[red]panel has problems[/]")
    return 0 if ok else 1

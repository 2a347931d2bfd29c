"""`prism check TASK` (also `prism panel check`): is the panel well formed, does every candidate
build, and is it fit to judge suites (the rules of `panel.fitness`)? Exit 0 fit, 1 unfit, 2 error."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from prism_lsp.engine.session import EngineSession
from prism_lsp.materialize import MaterializeError, TreeCache
from prism_lsp.materialize.digest import tree_digest
from prism_lsp.model.task import Task
from prism_lsp.model.untrusted import plain
from prism_lsp.panel.fitness import panel_rules

_STATUS = {"ok": "[green]ok[/]", "unfit": "[red]unfit[/]", "warning": "[yellow]warning[/]", "skipped": "skipped"}


def panel_problems(task: Task, cache: TreeCache) -> list[dict]:
    """One row per candidate: whether its tree builds and differs from the initial state."""
    rows = []
    initial = tree_digest(cache.baseline(task).path)
    for c in task.candidates:
        row = {
            "id": c.id,
            "label": c.label,
            "reference": c.reference,
            "kind": c.kind,
            "origin": c.origin,
            "ok": True,
            "problem": "",
        }
        try:
            tree = cache.candidate(task, c)
            if tree_digest(tree.path) == initial:
                row.update(ok=False, problem="identical to the initial state (the diff or overlay changes nothing)")
        except MaterializeError as exc:
            row.update(ok=False, problem=plain(str(exc)))  # may quote the task folder's diff: data only
        rows.append(row)
    valid = sum(c.valid for c in task.candidates)
    if valid < 2:
        rows.append(
            {
                "id": "(panel)",
                "ok": True,
                "problem": "note: only the reference is valid; over-specification cannot be seen",
            }
        )
    if valid == len(task.candidates):
        rows.append(
            {"id": "(panel)", "ok": True, "problem": "note: no invalid candidates; under-assertion cannot be seen"}
        )
    return rows


def check_panel(
    task: Task, console: Console, cache_dir: Path | None, as_json: bool = False, sandbox: str | None = None
) -> int:
    with EngineSession(cache_dir) as session:
        rows = panel_problems(task, session.cache)
        builds = all(r["ok"] for r in rows)
        # The behaviour rules need every program built; on a broken panel the build rows say why.
        rules, diversity = panel_rules(session, task, sandbox) if builds else ([], None)
    ok = builds and all(r.status != "unfit" for r in rules)
    if as_json:
        print(
            json.dumps(
                {
                    "task": task.id,
                    "ok": ok,
                    "candidates": rows,
                    "rules": [{"rule": r.name, "status": r.status, "detail": r.detail} for r in rules],
                    "diversity": None if diversity is None else round(diversity, 4),
                },
                indent=2,
            )
        )
        return 0 if ok else 1
    table = Table(header_style="bold")
    for col in ("candidate", "label", "kind", "builds", "problem"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            Text(r["id"] + (" (reference)" if r.get("reference") else "")),
            Text(r.get("label", "")),
            Text(r.get("kind", "")),
            "[green]yes[/]" if r["ok"] else "[red]no[/]",
            Text(r["problem"]),
        )
    console.print(f"[bold]{task.id}[/]: {len(task.candidates)} candidates")
    console.print(table)
    if rules:
        fit = Table(header_style="bold")
        for col in ("rule", "status", "detail"):
            fit.add_column(col)
        for rule in rules:
            fit.add_row(Text(rule.name), _STATUS[rule.status], Text(rule.detail))
        console.print(fit)
    console.print("[green]panel OK[/]" if ok else "[red]panel has problems[/]")
    return 0 if ok else 1

"""`prism panel label TASK ROWS.jsonl`: turn unlabelled implementations into labelled candidates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Task
from prism_lsp.panel.label import label_by_witnesses, label_diffs
from prism_lsp.panel.samples import read_samples
from prism_lsp.panel.write import NewCandidate, append_candidates


def label_rows(
    task: Task,
    rows: Path,
    cache_dir: Path,
    console: Console,
    *,
    sandbox: str | None,
    timeout_s: float | None,
    as_json: bool,
) -> int:
    """Label every row; write the labelled ones into the task. Exit 0 all labelled, 1 some could not be."""
    with EngineSession(cache_dir) as session:
        samples = read_samples(task, session.cache, rows)
        readable = {s.id: s.diff for s in samples if not s.error}
        if task.verifier is not None:
            judged = label_diffs(session, task, readable, "sample", sandbox=sandbox, timeout_s=timeout_s)
        else:
            judged = label_by_witnesses(session, task, readable, "sample", sandbox=sandbox)
    results: list[dict[str, Any]] = []
    new = []
    for s in samples:
        j = judged.get(s.id)
        error = s.error or (j.error if j else "")
        label = j.label if j and not error else None
        results.append(
            {
                "row": s.row,
                "id": s.id,
                "label": label,
                "error": error,
                "failed": list(j.failed) if j and label == "invalid" else [],
            }
        )
        if label:
            why = "verifier failures" if task.verifier is not None else "witness"
            note = f"sample; {why}: " + ", ".join(j.failed) if j is not None and label == "invalid" else "sample"
            new.append(NewCandidate(id=s.id, label=label, origin="sample", diff=s.diff, note=note))
    if new:
        append_candidates(task, new)
    ok = all(r["label"] for r in results)
    by = "verifier" if task.verifier is not None else "witnesses"
    if as_json:
        print(
            json.dumps({"task": task.id, "labelled_by": by, "rows": results, "written": [c.id for c in new]}, indent=2)
        )
        return 0 if ok else 1
    if by == "witnesses":
        console.print(
            Text(
                "no verifier in the manifest: labels come from witnesses against the reference and the "
                "other valid candidates (add `[verifier] suite = ...` for labels you can trust)"
            )
        )
    table = Table(header_style="bold")
    for col in ("row", "id", "label", "verifier tests failed / witness / why no label"):
        table.add_column(col)
    for r in results:
        shown = Text(
            r["label"] or "none", style="green" if r["label"] == "valid" else "yellow" if r["label"] else "red"
        )
        table.add_row(str(r["row"]), Text(r["id"]), shown, Text(r["error"] or ", ".join(r["failed"])))
    console.print(table)
    console.print(f"{len(new)} of {len(results)} rows labelled and added to {task.manifest}")
    return 0 if ok else 1

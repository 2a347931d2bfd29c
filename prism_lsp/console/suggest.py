"""`prism suggest TASK SUITE`: verified edits of the suite, as diffs, JSON, or written (`--write`).

`--write` is the only way Prism ever writes an author's file. At reveal `counts` there
are no suggestions: there the panel is an answer key.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.model.task import Task
from prism_lsp.suggest import apply_all, apply_edits, suggest, unified_diff
from prism_lsp.suggest.data import as_data
from prism_lsp.suggest.titles import title


def run_suggest(
    task: Task,
    suite_path: Path,
    suite: Suite,
    session: EngineSession,
    options: RunOptions,
    out: Console,
    *,
    as_json: bool,
    write: bool,
) -> int:
    reveal = options.reveal or task.reveal
    run = session.run(task, suite, options)
    found = suggest(session, task, suite, run, options)
    if write and found:
        suite_path.write_text(apply_all(suite.text, found), encoding="utf-8")
    if as_json:
        print(json.dumps([as_data(s, suite, reveal) for s in found], indent=2))
        return 0
    if not found:
        out.print("no verified suggestion for this suite")
    for s in found:
        out.print(f"[bold]line {s.line}[/] · {s.kind} · {escape(title(s, reveal))}")
        # Plain stdout: a console would wrap long lines, and the diff must stay one `patch` accepts.
        out.file.flush()
        sys.stdout.write(unified_diff(suite.text, apply_edits(suite.text, [s.edit]), suite.rel_path))
        sys.stdout.flush()
    if write and found:
        out.print(f"wrote {len(found)} suggestion{'s' if len(found) != 1 else ''} into {escape(str(suite_path))}")
    return 0

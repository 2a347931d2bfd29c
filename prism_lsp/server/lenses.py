"""Code lenses: one above each test (`initial: caught · valid 4/4 · invalid 3/5`) and one
for the file (`Prism: JSF ✗ · RAR ✓ · valid 1/4 · invalid 3/5`). Counts only, so every
reveal level may show them. Both run the panel when clicked."""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.analysis.suite_map import SuiteMap
from prism_lsp.server.checker import Check
from prism_lsp.server.outcomes import test_summary
from prism_lsp.server.positions import Lines

RUN_PANEL = "prism.runPanel"


def _mark(flag: bool) -> str:
    return "✓" if flag else "✗"


def file_title(check: Check | None) -> str:
    if check is None or check.task is None:
        return "Prism: no task"
    if check.error:
        return "Prism: could not run the panel"
    if check.report is None:
        return f"Prism: not run: {check.not_run}" if check.not_run else "Prism: running…"
    m = check.report.metrics
    accepted, valid, rejected, invalid = check.report.panel_counts()
    return f"Prism: JSF {_mark(m.jsf)} · RAR {_mark(m.rar)} · valid {accepted}/{valid} · invalid {rejected}/{invalid}"


def build_lenses(uri: str, check: Check | None, now: SuiteMap, lines: Lines) -> list[types.CodeLens]:
    """Lenses for the buffer as it is now (`now`), from the last check.

    None for a file that is not a suite (a program file of the task): nothing runs it."""
    if check is None or check.task is None or not check.is_suite:
        return []
    command = lambda title: types.Command(title=title, command=RUN_PANEL, arguments=[uri])  # noqa: E731
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    lenses = [types.CodeLens(range=top, command=command(file_title(check)))]
    for test in now.tests:
        old = next((t for t in check.suite_map.tests if t.name == test.name and t.body_hash == test.body_hash), None)
        summary = test_summary(check, test.name) if old is not None else None
        if summary is None:
            title = "initial: ? · valid ?/? · invalid ?/? (not run yet)"
        else:
            title = (f"initial: {summary.initial} · valid {summary.valid_accepted}/{summary.valid_total}"
                     f" · invalid {summary.invalid_rejected}/{summary.invalid_total}")
        lenses.append(types.CodeLens(range=lines.span_range(test.name_span), command=command(title)))
    return lenses


def offer_lens(uri: str) -> types.CodeLens:
    """The one lens of a test file with no task in a git repository: make the task from the fix."""
    from prism_lsp.repo.offer import TITLE
    from prism_lsp.server.commands import INIT_TASK

    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.CodeLens(range=top, command=types.Command(title=TITLE, command=INIT_TASK, arguments=[uri]))

"""Code lenses: one above each test (`initial: caught · valid 4/4 besides the reference · invalid 3/5`,
counted as everywhere: see :mod:`prism_lsp.document.counts`; `· reaches 4 of 6 changed lines` of the
reference's change where the report has it, `engine/change_coverage.py`) and one for the file
(`Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 3/5`). A test's counts are a line of
the candidates' runs, so at reveal `counts` and `sealed` a test's lens says `initial: caught`
only; at `sealed` the file's lens holds no panel number. Both run the panel when clicked. A panel
too small to judge a suite (no valid candidate besides the reference, or no invalid one) never shows
a passing JSF: the file's lens says what cannot be judged, and a client that has the command gets
"Build Panel"."""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.analysis.suite_map import SuiteMap, same_test
from prism_lsp.document.check import Check
from prism_lsp.document.counts import REFERENCE_ASIDE, panel_line
from prism_lsp.document.outcomes import test_summary
from prism_lsp.engine.change_coverage import reach_text
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT
from prism_lsp.server.commands import RUN_PANEL
from prism_lsp.server.positions import Lines
from prism_lsp.server.status import cannot_judge

BUILD_PANEL = "prism.buildPanel"  # a client command (the VS Code extension's), offered only to clients that have it


def _mark(flag: bool) -> str:
    return "✓" if flag else "✗"


def file_title(check: Check | None) -> str:
    if check is None or check.task is None:
        return "Prism: no task"
    state = check.state
    if state.kind == "failed":
        return "Prism: could not run the panel"
    if state.kind == "not-run":
        return f"Prism: not run: {state.reason}"
    if check.report is None:
        return "Prism: running…"
    m = check.report.metrics
    if check.reveal not in PANEL_SHOWN_AT:
        return f"Prism: sealed · initial: {'caught' if m.detects_baseline else 'missed'}"
    accepted, valid, rejected, invalid = check.report.panel_counts()
    missing = cannot_judge(valid, invalid)
    jsf = "?" if missing and m.jsf else _mark(m.jsf is True)  # a pass the panel cannot see past is no pass
    title = f"Prism: JSF {jsf} · RAR {_mark(m.rar is True)} · {panel_line(accepted, valid, rejected, invalid)}"
    return f"{title} · cannot judge {' or '.join(missing)}" if missing else title


def _too_small(check: Check) -> bool:
    if check.report is None:
        return False
    _, valid, _, invalid = check.report.panel_counts()
    return bool(cannot_judge(valid, invalid))


def build_lenses(
    uri: str, check: Check | None, now: SuiteMap, lines: Lines, *, build_panel: bool = False
) -> list[types.CodeLens]:
    """Lenses for the buffer as it is now (`now`), from the last check.

    None for a file that is not a suite (a program file of the task): nothing runs it.
    `build_panel`: the client has the "Build Panel" command (offered when the panel is too small)."""
    if check is None or check.task is None or not check.is_suite:
        return []
    command = lambda title: types.Command(title=title, command=RUN_PANEL, arguments=[uri])  # noqa: E731
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    lenses = [types.CodeLens(range=top, command=command(file_title(check)))]
    if build_panel and _too_small(check):
        lenses.append(
            types.CodeLens(range=top, command=types.Command(title="Build Panel", command=BUILD_PANEL, arguments=[uri]))
        )
    for test in now.tests:
        summary = test_summary(check, test.name) if same_test(check.suite_map, test) is not None else None
        if check.reveal not in LINES_SHOWN_AT:  # the panel's numbers for the whole suite only (file lens)
            title = f"initial: {summary.initial}" if summary is not None else "initial: ? (not run yet)"
        elif summary is None:
            title = f"initial: ? · valid ?/? {REFERENCE_ASIDE} · invalid ?/? (not run yet)"
        else:
            counts = panel_line(
                summary.valid_accepted, summary.valid_total, summary.invalid_rejected, summary.invalid_total
            )
            title = f"initial: {summary.initial} · {counts}"
            title += f" · {reach}" if (reach := reach_text(check.report, test.name)) else ""
        lenses.append(types.CodeLens(range=lines.span_range(test.name_span), command=command(title)))
    return lenses


def offer_lens(uri: str) -> types.CodeLens:
    """The one lens of a test file with no task in a git repository: make the task from the fix."""
    from prism_lsp.repo.offer import TITLE
    from prism_lsp.server.commands import INIT_TASK

    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.CodeLens(range=top, command=types.Command(title=TITLE, command=INIT_TASK, arguments=[uri]))

"""Code lenses: one above each test (`initial: caught · valid 4/4 besides the reference · invalid 3/5`,
counted as everywhere: see :mod:`prism_lsp.document.counts`; `· reaches 4 of 6 changed lines` of the
reference's change where the report has it, `engine/change_coverage.py`) and one for the file
(`Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 3/5`). Both read where the
document stands (:mod:`prism_lsp.document.standing`), as the status bar does: the last run's
counts marked `(last run)` while the buffer cannot run, an error state by its name
(`Prism: collection error: ...`) with no verdict. A test's counts are a line of
the candidates' runs, so at reveal `counts` and `sealed` a test's lens says `initial: caught`
only; at `sealed` the file's lens holds no panel number. Both run the panel when clicked. A panel
too small to judge a suite (no valid candidate besides the reference, or no invalid one) never shows
a passing JSF: the file's lens says what cannot be judged, and a client that has the command gets
"Build Panel"."""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.analysis.suite_map import SuiteMap, TestInfo, same_test
from prism_lsp.document.check import Check
from prism_lsp.document.counts import REFERENCE_ASIDE, panel_line
from prism_lsp.document.outcomes import test_summary
from prism_lsp.document.standing import Standing, standing
from prism_lsp.engine.change_coverage import reach_text
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT
from prism_lsp.server.commands import RUN_PANEL
from prism_lsp.server.positions import Lines
from prism_lsp.server.status import cannot_judge

BUILD_PANEL = "prism.buildPanel"  # a client command (the VS Code extension's), offered only to clients that have it


def _mark(flag: bool) -> str:
    return "✓" if flag else "✗"


def file_title(check: Check | None, last_run: Check | None = None) -> str:
    """The file's lens: where the document stands, as the status bar says it (`document.standing`)."""
    if check is None or check.task is None:
        return "Prism: no task"
    return _file_title(check, standing(check, last_run))


def _file_title(check: Check, now: Standing) -> str:
    if now.error is not None:  # an error state shows no verdict
        return "Prism: could not run the panel" if now.shown is None else f"Prism: {now.message}"
    shown = now.shown
    if shown is None or shown.report is None:
        if check.state.kind == "not-run":
            return f"Prism: not run: {check.state.reason}"
        return "Prism: running…"
    m = shown.report.metrics
    if shown.reveal not in PANEL_SHOWN_AT:
        title = f"sealed · initial: {'caught' if m.detects_baseline else 'missed'}"
    else:
        accepted, valid, rejected, invalid = shown.report.panel_counts()
        missing = cannot_judge(valid, invalid)
        jsf = "?" if missing and m.jsf else _mark(m.jsf is True)  # a pass the panel cannot see past is no pass
        title = f"JSF {jsf} · RAR {_mark(m.rar is True)} · {panel_line(accepted, valid, rejected, invalid)}"
        title += f" · cannot judge {' or '.join(missing)}" if missing else ""
    if now.stale:  # old numbers never look current (the status bar marks them the same way)
        return f"Prism (last run): {title} · not run now: {check.state.reason}"
    return f"Prism: {title}"


def _too_small(check: Check | None) -> bool:
    if check is None or check.report is None:
        return False
    _, valid, _, invalid = check.report.panel_counts()
    return bool(cannot_judge(valid, invalid))


def _test_title(now: Standing, test: TestInfo, reveal: str) -> str:
    """One test's lens, from the run the file's lens shows (at `reveal`: the stale run's is the same)."""
    shown = now.shown
    if now.error is not None:
        return f"{now.error}: the suite ran on no program" if shown is not None else "not run: the panel could not run"
    summary = None
    if shown is not None and same_test(shown.suite_map, test) is not None:
        summary = test_summary(shown, test.name)
    last = " (last run)" if now.stale else ""
    if reveal not in LINES_SHOWN_AT:  # the panel's numbers for the whole suite only
        return f"initial: {summary.initial}{last}" if summary is not None else "initial: ? (not run yet)"
    if summary is None:
        return f"initial: ? · valid ?/? {REFERENCE_ASIDE} · invalid ?/? (not run yet)"
    counts = panel_line(summary.valid_accepted, summary.valid_total, summary.invalid_rejected, summary.invalid_total)
    title = f"initial: {summary.initial} · {counts}"
    title += f" · {reach}" if (reach := reach_text(shown.report if shown else None, test.name)) else ""
    return title + last


def build_lenses(
    uri: str,
    check: Check | None,
    now: SuiteMap,
    lines: Lines,
    *,
    last_run: Check | None = None,
    build_panel: bool = False,
) -> list[types.CodeLens]:
    """Lenses for the buffer as it is now (`now`), from where the document stands after its last
    check (`check`) and its last run (`last_run`): the same reading as the status bar's.

    None for a file that is not a suite (a program file of the task): nothing runs it.
    `build_panel`: the client has the "Build Panel" command (offered when the panel is too small)."""
    if check is None or check.task is None or not check.is_suite:
        return []
    command = lambda title: types.Command(title=title, command=RUN_PANEL, arguments=[uri])  # noqa: E731
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    standing_now = standing(check, last_run)  # read once, for the file's lens and each test's
    lenses = [types.CodeLens(range=top, command=command(_file_title(check, standing_now)))]
    if build_panel and _too_small(standing_now.shown):
        lenses.append(
            types.CodeLens(range=top, command=types.Command(title="Build Panel", command=BUILD_PANEL, arguments=[uri]))
        )
    for test in now.tests:
        lenses.append(
            types.CodeLens(
                range=lines.span_range(test.name_span), command=command(_test_title(standing_now, test, check.reveal))
            )
        )
    return lenses


def offer_lens(uri: str) -> types.CodeLens:
    """The one lens of a test file with no task in a git repository: make the task from the fix."""
    from prism_lsp.repo.offer import TITLE
    from prism_lsp.server.commands import INIT_TASK

    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.CodeLens(range=top, command=types.Command(title=TITLE, command=INIT_TASK, arguments=[uri]))

"""Hover on an assertion: a table of every program's outcome at it, at the reveal level.

`full`: program, label, outcome, value compared. `labels`: anonymous names and
labels, no values. `counts` and `sealed`: the initial program's outcome only (a count of the
candidates failing at one assertion would say which candidates a line flags: the answer key).
Markdown for clients that list it in `textDocument.hover.contentFormat`, aligned
plain text for the others (a Markdown table read as plain text is mostly pipes).
The table comes first and the caption after it: editors put the diagnostic's own
message above the hover, so nothing here repeats it and the table is in sight. Under it, the
static hints on the line (they need no run): a hint's own marker is a few dots wide.
"""

from __future__ import annotations

from prism_lsp.analysis.suite_map import SuiteMap, assertion_at_line
from prism_lsp.document.check import Check
from prism_lsp.document.outcomes import AssertionRow, anchor, assertion_rows
from prism_lsp.judge.reveal import LINES_SHOWN_AT

MARK = {"pass": "pass ✓", "fail": "fail ✗", "error": "error ⚠"}


def hover_text(check: Check | None, now: SuiteMap, line: int, *, markdown: bool) -> str | None:
    """The hover for 1-based `line` as Markdown or as plain text, or None when there is nothing to say:
    the outcome table of the assertion there, then the static hints on that line."""
    if check is None:
        return None
    parts = [_outcomes(check, now, line, markdown), _hints(check, now, line, markdown)]
    return "\n\n".join(p for p in parts if p) or None


def _outcomes(check: Check, now: SuiteMap, line: int, markdown: bool) -> str | None:
    if check.run is None:
        return None
    assertion = assertion_at_line(now, line)
    if assertion is None or assertion.test_name is None:
        return None
    anchored = anchor(check, now, assertion.span.start_line)
    if anchored is None:
        return f"{_title('Prism', markdown)}: this test changed since the last run; results appear after the next one."
    test, old_start = anchored
    old_end = old_start + assertion.span.end_line - assertion.span.start_line
    rows = assertion_rows(check, test.name, old_start, old_end)
    if not rows:
        return None
    if check.reveal not in LINES_SHOWN_AT:
        return _initial_only(rows, markdown)
    if not markdown:
        return _plain_table(rows, with_values=check.reveal == "full")
    return _table(rows, with_values=check.reveal == "full")


def _hints(check: Check, now: SuiteMap, line: int, markdown: bool) -> str | None:
    """The static hints (`weak-assertion`) whose range holds `line`, anywhere on it: an editor draws
    a hint as a few dots under its first characters, too small a target for the pointer alone."""
    anchored = anchor(check, now, line)
    if anchored is None:
        return None
    old = anchored[1]
    found = [f for f in check.static if f.span.start_line <= old <= f.span.end_line]
    if not found:
        return None
    return "\n".join(f"{_title(f.kind, markdown)} ({f.rule}): {f.message}" for f in found)


HEADING = "outcome at this assertion"


def _caption(markdown: bool) -> str:
    return f"_Prism — {HEADING}_" if markdown else f"Prism — {HEADING}"


def _title(text: str, markdown: bool) -> str:
    return f"**{text}**" if markdown else text


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("`", "'")
    return f"`{text[:80]}`" if text else ""


def _table(rows: list[AssertionRow], with_values: bool) -> str:
    head = "| program | label | outcome |" + (" value |" if with_values else "")
    rule = "|---|---|---|" + ("---|" if with_values else "")
    body = []
    for r in rows:
        label = r.label + (" (reference)" if r.reference and with_values else "")
        cells = [
            r.program if r.program == "initial" or not with_values else f"`{r.program}`",
            label,
            MARK.get(r.outcome, r.outcome),
        ]
        if with_values:
            cells.append(_cell(r.value))
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, rule, *body, "", _caption(True)])


def _plain_table(rows: list[AssertionRow], with_values: bool) -> str:
    """The same table as `_table`, as space-aligned columns."""
    table = [["program", "label", "outcome"] + (["value"] if with_values else [])]
    for r in rows:
        label = r.label + (" (reference)" if r.reference and with_values else "")
        table.append([r.program, label, MARK.get(r.outcome, r.outcome)] + ([r.value[:80]] if with_values else []))
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
    return "\n".join([*lines, "", _caption(False)])


def _initial_only(rows: list[AssertionRow], markdown: bool = True) -> str:
    initial = next((r for r in rows if r.label == "baseline"), None)
    lines = [f"- initial program: {initial.outcome}"] if initial is not None else []
    lines.append("- candidates: whole-suite numbers only at this reveal level")
    return "\n".join([*lines, "", _caption(markdown)])

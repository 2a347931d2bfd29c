"""Hover on an assertion: a table of every program's outcome at it, at the reveal level.

`full`: program, label, outcome, value compared. `labels`: anonymous names and
labels, no values. `counts`: only how many valid / invalid candidates fail here.
"""

from __future__ import annotations

from prism_lsp.analysis.suite_map import SuiteMap, assertion_at_line
from prism_lsp.server.checker import Check
from prism_lsp.server.outcomes import AssertionRow, anchor, assertion_rows

MARK = {"pass": "pass ✓", "fail": "fail ✗", "error": "error ⚠"}


def hover_markdown(check: Check | None, now: SuiteMap, line: int) -> str | None:
    """Markdown for 1-based `line` of the current buffer, or None when there is nothing to say."""
    if check is None or check.run is None:
        return None
    assertion = assertion_at_line(now, line)
    if assertion is None or assertion.test_name is None:
        return None
    anchored = anchor(check, now, assertion.span.start_line)
    if anchored is None:
        return "**Prism**: this test changed since the last run; results appear after the next one."
    test, old_start = anchored
    old_end = old_start + assertion.span.end_line - assertion.span.start_line
    rows = assertion_rows(check, test.name, old_start, old_end)
    if not rows:
        return None
    if check.reveal == "counts":
        return _counts(rows)
    return _table(rows, with_values=check.reveal == "full")


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("`", "'")
    return f"`{text[:80]}`" if text else ""


def _table(rows: list[AssertionRow], with_values: bool) -> str:
    head = "| program | label | outcome |" + (" value |" if with_values else "")
    rule = "|---|---|---|" + ("---|" if with_values else "")
    body = []
    for r in rows:
        label = r.label + (" (reference)" if r.reference and with_values else "")
        cells = [r.program if r.program == "initial" or not with_values else f"`{r.program}`", label,
                 MARK.get(r.outcome, r.outcome)]
        if with_values:
            cells.append(_cell(r.value))
        body.append("| " + " | ".join(cells) + " |")
    return "\n".join(["**Prism** — outcome at this assertion", "", head, rule, *body])


def _counts(rows: list[AssertionRow]) -> str:
    initial = next((r for r in rows if r.label == "baseline"), None)
    lines = ["**Prism** — outcome at this assertion", ""]
    if initial is not None:
        lines.append(f"- initial program: {initial.outcome}")
    for label in ("valid", "invalid"):
        mine = [r for r in rows if r.label == label]
        lines.append(f"- {label}: {sum(r.outcome == 'fail' for r in mine)} of {len(mine)} fail here")
    return "\n".join(lines)

"""Which findings of the last panel run still hold for a newer, not yet run, buffer.

While typing, the static diagnostics (syntax errors, weak-assertion hints) are published
for every version, before (or without) a panel run. Dropping every panel finding until
the next run would make the editor flicker, and keeping them all would pin findings on
text that changed. So a finding is kept exactly while everything it depends on is
unchanged, which makes it as true now as when it was found:

- a finding inside one test (`rejects-valid` on an assert, an `execution-error` in a test)
  depends on that test's text and the suite's shared code (imports, fixtures, helpers):
  kept, moved with the test, while both are unchanged;
- a suite-level finding (`accepts-invalid`, `misses-baseline`) or one outside every test
  depends on the whole suite (a new test can catch the invalid candidate): kept only while
  no test and no shared code changed.

A finding is never carried across a change of reveal level (its message may name
candidates the new level hides). Pure: no LSP.

Just before a run (`pending`), the publication that carries the new static hints also keeps
the findings that may no longer hold but whose test is still there (a suite-level finding,
one inside an edited test, kept on that test's lines): the run replaces them within moments,
and taking them away first made the squiggles vanish and come back on every keystroke.
"""

from __future__ import annotations

from dataclasses import replace

from prism_lsp.analysis.suite_map import SuiteMap, same_test, test_at_line, test_for_name
from prism_lsp.document.check import Check
from prism_lsp.model.report import SUITE_LEVEL_KINDS, FindingOut


def still_holding(last: Check, now: SuiteMap, *, pending: bool = False) -> list[FindingOut]:
    """The findings of `last`'s report that still hold in `now`, with lines moved to `now`;
    `pending` (a run follows at once): also those whose test is still there by name."""
    if last.report is None:
        return []
    old = last.suite_map
    if old.shared_hash != now.shared_hash:
        return []
    whole_suite_same = [(t.name, t.body_hash) for t in old.tests] == [(t.name, t.body_hash) for t in now.tests]
    kept: list[FindingOut] = []
    for finding in last.report.findings:
        if finding.kind == "weak-assertion":
            continue  # static: recomputed for every version
        test = test_at_line(old, finding.line)
        if test is None:
            if whole_suite_same and old.text == now.text:
                kept.append(finding)
            continue
        if finding.kind in SUITE_LEVEL_KINDS and not whole_suite_same and not pending:
            continue
        same = same_test(now, test) or (test_for_name(now, test.name) if pending else None)
        if same is None:
            continue
        shift = same.span.start_line - test.span.start_line
        # An edited test may be shorter now: the finding stays within it.
        line = min(finding.line + shift, same.span.end_line)
        end_line = min(max(finding.end_line + shift, line), same.span.end_line)
        kept.append(finding.model_copy(update={"line": line, "end_line": end_line}))
    return kept


def with_last_findings(now: Check, last: Check | None, *, pending: bool = False) -> Check:
    """`now` (not run) carrying the findings of the `last` run that still hold — for publishing only.

    The result borrows `last`'s run (for related-information links), so it must never be
    stored as the document's check: hover, lenses and status describe real runs only."""
    if (
        last is None
        or last.report is None
        or now.report is not None
        or not now.is_suite
        or last.reveal != now.reveal
        or last.task != now.task
    ):
        return now
    findings = still_holding(last, now.suite_map, pending=pending)
    if not findings:
        return now
    return replace(now, run=last.run, report=last.report.model_copy(update={"findings": findings}))

"""Witnesses in the panel report: accepts-invalid findings gain `witness` at reveal full and labels.

Below `full` the report's findings show no candidate ids, but each still knows (unserialised,
`FindingOut.about`) which candidates it is about: witnesses are matched to findings by that, never
by position; the witness then names them as the reveal level does (`invalid-2` at labels).
"""

from __future__ import annotations

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.findings import Finding
from prism_lsp.judge.reveal import WITNESSES_SHOWN_AT as SHOWN_AT
from prism_lsp.judge.reveal import anonymous_ids, strictest
from prism_lsp.model.report import PanelReport, WitnessOut
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task
from prism_lsp.witness.search import SearchResult, Witness


def expected_text(w: Witness) -> str:
    if w.kind == "raises":
        return f"raises {w.expected}"
    if w.kind == "mutates":
        return "leaves its arguments unchanged"
    return w.expected


def attach_witnesses(report: PanelReport, task: Task, found: SearchResult, reveal: str) -> PanelReport:
    """Fill `witness` on the report's accepts-invalid findings (in place; nothing below labels)."""
    if reveal not in SHOWN_AT:
        return report
    names = anonymous_ids(task.candidates, reveal)
    for out in report.findings:
        if out.kind != "accepts-invalid":
            continue
        # By identity: the candidates this finding is about (kept at every level), not its position.
        ws = [found.witnesses[c] for c in out.about() if c in found.witnesses]
        if not ws:
            continue
        first = ws[0]
        got = {
            names[w.program]: v
            for w in ws
            if (w.assertion_call, w.kind) == (first.assertion_call, first.kind)
            for v in w.got.values()
        }
        out.witness = WitnessOut(
            call=first.assertion_call if first.kind != "mutates" else first.call, expected=expected_text(first), got=got
        )
    return report


def report_with_witnesses(
    session: EngineSession, task: Task, suite: Suite, options: RunOptions, extra_findings: list[Finding] | None = None
) -> tuple[PanelRun, PanelReport]:
    """Run the panel and build its report; at `full` and `labels` its accepts-invalid findings carry
    a witness (searched only for the invalid candidates the suite let through). What `prism run`
    and `prism mcp` answer."""
    run = session.run(task, suite, options)
    report = session.report_of(task, suite, run, options, extra_findings=extra_findings)
    reveal = strictest(options.reveal, task.reveal)
    if reveal in SHOWN_AT and any(f.kind == "accepts-invalid" for f in report.findings):
        from prism_lsp.witness.panel_search import search_panel

        accepted = {c.id for c, r in run.results if not c.valid and r.outcome == "pass"}
        found = search_panel(session, task, suite.text, sandbox=options.sandbox, targets=accepted)
        attach_witnesses(report, task, found.result, reveal)
    return run, report

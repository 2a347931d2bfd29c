"""Render a `PanelReport` (and scores) as rich tables for people."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from prism_lsp.document.counts import panel_line
from prism_lsp.model.report import PanelReport

_OUTCOME_STYLE = {"pass": "green", "fail": "red", "error": "bold magenta"}


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.0f}%"


def render_report(report: PanelReport, console: Console) -> None:
    """Baseline, candidates, findings with lines, then metrics."""
    for w in report.warnings:
        console.print(f"[bold yellow]warning:[/] {escape(w)}")
    console.print(
        f"[bold]{escape(report.task)}[/] · suite [cyan]{escape(report.suite)}[/] · "
        f"sandbox {escape(report.sandbox or '?')}"
    )
    b = report.baseline
    base = Text.assemble("initial program: ", (b.outcome, _OUTCOME_STYLE[b.outcome]))
    if b.outcome == "fail":
        base.append("  (the suite detects the bug)", style="dim")
    elif report.detection:
        base.append(f"  ({b.reason}: the suite detects the initial program because {report.detection})", style="dim")
    elif b.outcome == "pass":
        base.append("  (the suite misses the bug)", style="yellow")
    else:
        base.append(f"  ({b.reason}: {b.message.splitlines()[0] if b.message else ''})", style="magenta")
    console.print(base)
    if report.reveal == "sealed":
        console.print(
            "panel: sealed (it does not run while the suite is written: only the initial program's "
            "outcome and the static hints are shown)"
        )
    elif report.reveal == "counts":
        # The panel's answer key stays hidden: no row per candidate, only how many fared how.
        accepted, valid, rejected, invalid = report.panel_counts()
        errors = report.panel.errors if report.panel is not None else 0
        console.print(
            f"panel: {panel_line(accepted, valid, rejected, invalid)} · {errors} could not be judged · reference "
            f"{'accepted' if report.metrics.rar else 'not accepted'}"
        )
    else:
        console.print(_candidate_table(report))
    _findings_and_metrics(report, console)


def _candidate_table(report: PanelReport) -> Table:
    table = Table(show_lines=False, header_style="bold")
    for col in ("candidate", "label", "outcome", "verdict", "correct", "note"):
        table.add_column(col)
    for c in report.candidates:
        name = c.id + (" (reference)" if c.reference else "")
        verdict = c.verdict or ("unstable" if c.unstable else f"error: {c.reason}")
        # Candidate ids, labels and notes come from the manifest: plain Text, never markup.
        table.add_row(
            Text(name),
            Text(c.label),
            Text(c.outcome, style=_OUTCOME_STYLE[c.outcome]),
            Text(verdict),
            Text("yes" if c.correct else "no", style="green" if c.correct else "red"),
            Text(c.note),
        )
    return table


def _findings_and_metrics(report: PanelReport, console: Console) -> None:
    if report.findings:
        console.print("[bold]findings[/]")
        for f in report.findings:
            style = {
                "rejects-valid": "red",
                "accepts-invalid": "yellow",
                "misses-baseline": "yellow",
                "execution-error": "magenta",
                "weak-assertion": "cyan",
                "unstable": "red",
            }.get(f.kind, "white")
            console.print(Text.assemble(f"  line {f.line} ", (f"[{f.kind}]", style), f" {f.message}"))
            if f.witness is not None:
                got = ", ".join(f"{who}: {value}" for who, value in f.witness.got.items())
                console.print(
                    Text(f"    witness: {f.witness.call} — valid candidates: {f.witness.expected}; {got}"), style="dim"
                )
    m = report.metrics
    mark = lambda ok: "[green]yes[/]" if ok else "[red]no[/]"  # noqa: E731
    if report.reveal == "sealed":
        console.print(f"detects baseline {mark(m.detects_baseline)} · {report.timing_ms['total']:.0f} ms")
        return
    h = "n/a" if m.h is None else f"{m.h:.4f}"
    console.print(
        f"detects baseline {mark(m.detects_baseline)} · RAR {mark(m.rar)} · [bold]JSF[/] {mark(m.jsf)} · "
        f"valid acceptance {_pct(m.valid_acceptance)} · invalid rejection {_pct(m.invalid_rejection)} · "
        f"H {h} · {report.timing_ms['total']:.0f} ms"
    )
    seeds = ", ".join(map(str, report.seeds))
    confirmed = (
        f" · failures on valid candidates confirmed with seed {', '.join(map(str, report.confirmed_with))}"
        f" ({report.reruns} test reruns)"
        if report.confirmed_with
        else ""
    )
    console.print(f"[dim]hash seed{'s' if len(report.seeds) > 1 else ''} {seeds}{confirmed}[/]")
    reach = [
        f"{name} {c.reached} of {c.total} {what}"
        for name, c, what in (
            ("ΔC", report.change_coverage, "changed lines"),
            ("entry", report.entry_coverage, "lines"),
        )
        if c is not None and c.total
    ]
    if reach:
        console.print(f"[dim]coverage on the reference: {' · '.join(reach)}[/]")

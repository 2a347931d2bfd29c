"""The paper's table on the terminal: RAR, valid acceptance, invalid rejection, H, JSF in percent,
and per pair the paper's coverage measures on the reference, ΔC and entry coverage (in percent).

One row per pair, then one per suite name when there are several, then the overall row
(DESIGN.md's aggregation); error rows show their message in place of the rates.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from prism_lsp.scoring.aggregate import summarize

COLUMNS = ("RAR", "valid acc.", "invalid rej.", "H", "JSF", "ΔC", "entry")
COVERAGE_KEYS = ("change_coverage", "entry_coverage")


def coverage_pct(report: dict, key: str) -> float | None:
    """A pair's ΔC (`change_coverage`) or entry coverage in percent; None when not measured."""
    measure = report.get(key)
    ratio = measure.get("ratio") if isinstance(measure, dict) else None
    return None if ratio is None else round(100 * float(ratio), 2)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _pair_cells(m: dict) -> list[str]:
    pct = lambda v: None if v is None else round(100 * float(v), 2)  # noqa: E731
    return [
        _pct(pct(m["rar"])),
        _pct(pct(m["valid_acceptance"])),
        _pct(pct(m["invalid_rejection"])),
        _pct(pct(m["h"])),
        _pct(pct(m["jsf"])),
    ]


def _summary_cells(s: dict) -> list[str]:
    rates = [_pct(s["rar"]), _pct(s["valid_acceptance"]), _pct(s["invalid_rejection"]), _pct(s["h"]), _pct(s["jsf"])]
    return rates + ["", ""]


def render_table(records: list[dict], console: Console) -> None:
    table = Table(header_style="bold", title="rates in %")
    table.add_column("task")
    table.add_column("suite")
    for col in COLUMNS:
        table.add_column(col, justify="right")
    for r in records:
        if r["status"] == "ok":
            coverage = [_pct(coverage_pct(r["report"], key)) for key in COVERAGE_KEYS]
            table.add_row(Text(r["task"]), Text(r["suite"]), *_pair_cells(r["report"]["metrics"]), *coverage)
        else:
            error = Text(f"error: {r['error']}", style="red")
            table.add_row(Text(r["task"]), Text(r["suite"]), error, *[""] * (len(COLUMNS) - 1))
    summary = summarize(records)
    if len(summary["by_suite"]) > 1:
        table.add_section()
        for suite, rates in summary["by_suite"].items():
            table.add_row(Text(f"{rates['tasks']} tasks"), Text(suite), *_summary_cells(rates))
    table.add_section()
    overall = summary["overall"]
    table.add_row(Text("overall", style="bold"), Text(f"{overall['tasks']} pairs"), *_summary_cells(overall))
    console.print(table)
    if summary["errors"]:
        console.print(
            f"{summary['errors']} of {summary['pairs']} pairs could not be scored (error rows); "
            "they are left out of the rates",
            style="red",
            highlight=False,
        )

"""`prism panel sensitivity TASK SUITE`: how the suite's joint success depends on panel size."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.sensitivity import Counts, as_data, counts_of, curves, expected_jsf
from prism_lsp.model.report import PanelReport


def _pct(v) -> str:
    return f"{float(v) * 100:.1f}%"


def render_sensitivity(c: Counts, console: Console) -> None:
    console.print(
        f"other valid n^V = {c.n_valid} (accepted s^V = {c.s_valid}) · invalid n^I = {c.n_invalid} "
        f"(rejected s^I = {c.s_invalid}) · detects baseline and accepts reference: "
        f"{'yes' if c.f else 'no'}"
    )
    table = Table(
        title="expected joint success with the reference, a valid and b invalid candidates", header_style="bold"
    )
    table.add_column("a \\ b", justify="right")
    for b in range(c.n_invalid + 1):
        table.add_column(str(b), justify="right")
    for a in range(c.n_valid + 1):
        table.add_row(str(a), *[_pct(expected_jsf(c, a, b)) for b in range(c.n_invalid + 1)])
    console.print(table)
    for name, rows in curves(c).items():
        console.print(
            f"adding {name + ' only' if name != 'alternating' else 'alternately'}: "
            + "  ".join(f"{a + b}: {_pct(v)}" for a, b, v in rows)
        )


def sensitivity(report: PanelReport, console: Console, *, plot: Path | None, as_json: bool) -> int:
    """Print the table (or JSON) for an already-run panel report; write the plot when asked."""
    c = counts_of(report)
    if plot is not None:
        from prism_lsp.panel.plot import write_plot

        write_plot(c, plot, f"{report.task} · {report.suite}")
    if as_json:
        print(
            json.dumps(
                {"task": report.task, "suite": report.suite, **as_data(c), "plot": str(plot) if plot else None},
                indent=2,
            )
        )
    else:
        render_sensitivity(c, console)
        if plot is not None:
            console.print(f"plot written to {plot}")
    return 0


def run_sensitivity(
    task,
    suite,
    cache_dir: Path,
    console: Console,
    *,
    sandbox: str | None,
    timeout_s: float | None,
    plot: Path | None,
    as_json: bool,
) -> int:
    with EngineSession(cache_dir) as session:
        # Full reveal: the command's whole point is to count the panel's verdicts.
        report = session.report(task, suite, RunOptions(sandbox=sandbox, timeout_s=timeout_s, reveal="full"))
    return sensitivity(report, console, plot=plot, as_json=as_json)

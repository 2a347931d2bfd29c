"""One self-contained HTML page: the rates table, then per pair a kill matrix and the findings.

The kill matrix has a row per test (and one for the whole program) and a column per program
(the initial one, then the panel); each cell is pass, fail or error. A column whose verdict is
wrong -- an initial program the suite passes, a valid candidate rejected, an invalid one
accepted -- is marked. No script, no external resource; every text is escaped.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from prism_lsp.scoring.aggregate import summarize
from prism_lsp.scoring.reports.table import COVERAGE_KEYS, coverage_pct
from prism_lsp.scoring.text import clean

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 16px}
th,td{border:1px solid #bbb;padding:3px 8px;text-align:left}
td.num{text-align:right}
.matrix td{text-align:center;min-width:3.5em;font-weight:600}
.pass{background:#c8f0c8}.fail{background:#f6c6c6}.error{background:#f3dd8d}.none{background:#eee;color:#888}
th.wrong{background:#b00020;color:#fff}
th.right{background:#e8e8e8}
.err{color:#b00020}
section{border-top:2px solid #ddd;margin-top:20px}
"""


def _e(text) -> str:
    return escape(clean(str(text)))


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def _rates_table(records: list[dict]) -> str:
    summary = summarize(records)
    head = (
        "<tr><th>task</th><th>suite</th><th>RAR</th><th>valid acc.</th><th>invalid rej.</th><th>H</th><th>JSF</th>"
        "<th title='change coverage on the reference'>ΔC</th><th title='entry coverage on the reference'>entry</th></tr>"
    )
    rows = []
    for r in records:
        if r["status"] != "ok":
            rows.append(
                f"<tr><td>{_e(r['task'])}</td><td>{_e(r['suite'])}</td>"
                f"<td colspan=7 class=err>error: {_e(r['error'])}</td></tr>"
            )
            continue
        m = r["report"]["metrics"]
        pct = [
            None if m[k] is None else round(100 * float(m[k]), 2)
            for k in ("rar", "valid_acceptance", "invalid_rejection", "h", "jsf")
        ] + [coverage_pct(r["report"], key) for key in COVERAGE_KEYS]
        rows.append(
            f"<tr><td>{_e(r['task'])}</td><td>{_e(r['suite'])}</td>"
            + "".join(f"<td class=num>{_pct(v)}</td>" for v in pct)
            + "</tr>"
        )
    for label, rates in [
        *((f"{s} ({v['tasks']} tasks)", v) for s, v in summary["by_suite"].items()),
        (f"overall ({summary['overall']['tasks']} pairs)", summary["overall"]),
    ]:
        rows.append(
            f"<tr><th colspan=2>{_e(label)}</th>"
            + "".join(
                f"<td class=num>{_pct(rates[k])}</td>"
                for k in ("rar", "valid_acceptance", "invalid_rejection", "h", "jsf")
            )
            + "<td></td><td></td></tr>"
        )
    note = (
        (
            f"<p class=err>{summary['errors']} of {summary['pairs']} pairs could not be scored; "
            "they are left out of the rates.</p>"
        )
        if summary["errors"]
        else ""
    )
    return f"<table class=rates>{head}{''.join(rows)}</table>{note}"


def _cell(outcome: str | None) -> str:
    return f"<td class={outcome}>{outcome}</td>" if outcome else "<td class=none>–</td>"


def kill_matrix(report: dict) -> str:
    """The tests x programs table of one pair's report."""
    programs = [("initial", "initial", report["baseline"], bool(report["metrics"]["detects_baseline"]))]
    programs += [
        (c["id"], f"{c['label']}{' (reference)' if c['reference'] else ''}", c, c["correct"])
        for c in report["candidates"]
    ]
    tests: list[str] = []
    for _, _, program, _ in programs:
        tests += [t["name"] for t in program["tests"] if t["name"] not in tests]
    head = (
        "<tr><th>test \\ program</th>"
        + "".join(
            f"<th class={'right' if right else 'wrong'} title='{_e(kind)}'>{_e(name)}<br><small>{_e(kind)}"
            f"{'' if right else ' · wrong verdict'}</small></th>"
            for name, kind, _, right in programs
        )
        + "</tr>"
    )
    rows = ["<tr><th>whole program</th>" + "".join(_cell(p["outcome"]) for _, _, p, _ in programs) + "</tr>"]
    for test in tests:
        by_program = [{t["name"]: t["outcome"] for t in p["tests"]}.get(test) for _, _, p, _ in programs]
        rows.append(f"<tr><th>{_e(test)}</th>" + "".join(_cell(o) for o in by_program) + "</tr>")
    return f"<table class=matrix>{head}{''.join(rows)}</table>"


def _findings(report: dict) -> str:
    items = [f"<li>line {int(f['line'])} <b>[{_e(f['kind'])}]</b> {_e(f['message'])}</li>" for f in report["findings"]]
    return f"<ul>{''.join(items)}</ul>" if items else "<p>no findings</p>"


def html_page(records: list[dict], title: str = "prism score") -> str:
    sections = []
    for n, r in enumerate(records):
        heading = f"<h2 id=pair-{n}>{_e(r['task'])} · {_e(r['suite'])}</h2>"
        if r["status"] != "ok":
            sections.append(f"<section>{heading}<p class=err>error: {_e(r['error'])}</p></section>")
            continue
        sections.append(
            f"<section>{heading}{kill_matrix(r['report'])}<h3>findings</h3>{_findings(r['report'])}</section>"
        )
    return (
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><link rel=icon href='data:,'><title>{_e(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{_e(title)}</h1>"
        f"<p>Rates in %, aggregated as DESIGN.md defines them (equal weight per pair, rounded, H from the "
        f"rounded rates).</p>{_rates_table(records)}{''.join(sections)}</body></html>\n"
    )


def write_html(records: list[dict], path: Path) -> None:
    Path(path).write_text(html_page(records), encoding="utf-8")

"""GitHub Actions: findings as workflow commands (annotations on the suite's lines) and a step summary table.

Only when `GITHUB_ACTIONS=true` (the environment is trusted: whoever starts Prism set it).
Workflow commands are escaped as GitHub's toolkit does (`%`, CR, LF in the message; also `:` and
`,` in properties), so a message from inside a sandbox cannot end its command early or start
another one. GitHub shows a few annotations per step; at most `MAX_ANNOTATIONS` are printed and
the rest counted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from prism_lsp.judge.metrics import aggregate
from prism_lsp.scoring.reports.sarif import RULES
from prism_lsp.scoring.text import clean

MAX_ANNOTATIONS = 50
COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _relative(suite_file: str, root: Path) -> str:
    path = Path(suite_file).resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def workflow_commands(records: list[dict], root: Path) -> list[str]:
    """One `::warning file=…,line=…,endLine=…,title=…::message` line per finding (capped)."""
    root = root.resolve()
    lines = []
    for r in records:
        file = _relative(r["suite_file"], root)
        if r["status"] != "ok":
            lines.append(
                f"::error file={escape_property(file)},title={escape_property('prism: not judged')}::"
                f"{escape_data(clean(r['error'] or ''))}"
            )
            continue
        for f in r["report"]["findings"]:
            start = max(1, int(f["line"]))
            props = {
                "file": file,
                "line": str(start),
                "endLine": str(max(start, int(f["end_line"]))),
                "title": f"prism {f['kind']}",
            }
            head = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
            lines.append(f"::{COMMAND[RULES[f['kind']][0]]} {head}::{escape_data(clean(f['message']))}")
    if len(lines) > MAX_ANNOTATIONS:
        rest = len(lines) - MAX_ANNOTATIONS
        lines = lines[:MAX_ANNOTATIONS] + [f"::notice::{rest} more findings (see the SARIF or JSON report)"]
    return lines


def _md(text) -> str:
    """Text for a markdown table cell: no markup, no line break, no cell break."""
    return (
        clean(str(text), 300)
        .replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace("`", "\\`")
        .replace("\n", " ")
        .replace("\r", " ")
    )


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * float(value):.0f}%"


def step_summary(records: list[dict], title: str, checks: list[str] | None = None) -> str:
    """A markdown table: one row per suite, then the overall rates and the gate's checks."""
    rows = [
        "| suite | detects bug | reference accepted | valid accepted | invalid rejected | JSF | findings |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in records:
        if r["status"] != "ok":
            rows.append(f"| {_md(r['suite'])} | error: {_md(r['error'])} | | | | | |")
            continue
        m = r["report"]["metrics"]
        rows.append(
            f"| {_md(r['suite'])} | {'yes' if m['detects_baseline'] else 'no'} | {'yes' if m['rar'] else 'no'}"
            f" | {_pct(m['valid_acceptance'])} | {_pct(m['invalid_rejection'])} | {'yes' if m['jsf'] else 'no'}"
            f" | {len(r['report']['findings'])} |"
        )
    overall = aggregate(r["report"]["metrics"] for r in records if r["status"] == "ok")
    fmt = lambda v: "n/a" if v is None else f"{v:.0f}%"  # noqa: E731  (aggregate gives percentages)
    rows.append(
        f"| **overall ({overall['tasks']})** | {fmt(overall['detects_baseline'])} | {fmt(overall['rar'])}"
        f" | {fmt(overall['valid_acceptance'])} | {fmt(overall['invalid_rejection'])} | {fmt(overall['jsf'])} | |"
    )
    out = [f"### {_md(title)}", "", *rows, ""]
    out += [f"- {_md(c)}" for c in checks or []]
    return "\n".join(out) + "\n"


def emit_github(
    records: list[dict],
    root: Path,
    title: str,
    checks: list[str] | None,
    stream: TextIO,
    env: Mapping[str, str] | None = None,
) -> bool:
    """Print the workflow commands to `stream` and append the summary to `$GITHUB_STEP_SUMMARY`,
    when running in GitHub Actions; whether it did."""
    env = os.environ if env is None else env
    if env.get("GITHUB_ACTIONS") != "true":
        return False
    for line in workflow_commands(records, root):
        print(line, file=stream)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(step_summary(records, title, checks))
    return True

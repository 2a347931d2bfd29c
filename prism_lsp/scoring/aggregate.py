"""DESIGN.md's rates over many pairs: overall, and per suite name (one column of a leaderboard).

Each scored pair counts once with equal weight (`engine.metrics.aggregate`: per-pair rates
averaged, undefined ones left out of their mean, rounded to two decimals as percentages,
H from the rounded values). Error rows -- pairs that could not be scored at all -- have no
rates: they are counted and left out of every mean, and every report says how many.
"""

from __future__ import annotations

from prism_lsp.judge.metrics import aggregate


def summarize(records: list[dict]) -> dict:
    """{"overall": rates, "by_suite": {suite: rates}, "pairs": n, "errors": n}."""
    scored = [r for r in records if r["status"] == "ok"]
    by_suite: dict[str, list[dict]] = {}
    for r in scored:
        by_suite.setdefault(r["suite"], []).append(r["report"]["metrics"])
    return {
        "overall": aggregate(r["report"]["metrics"] for r in scored),
        "by_suite": {suite: aggregate(rows) for suite, rows in by_suite.items()},
        "pairs": len(records),
        "errors": len(records) - len(scored),
    }


def pair_row(record: dict) -> dict:
    """One pair as the table and `--json` show it: identity, status, and its metrics (None for an error row)."""
    report = record.get("report")
    return {
        "task": record["task"],
        "suite": record["suite"],
        "status": record["status"],
        "error": record["error"],
        "metrics": report["metrics"] if report else None,
    }


def summary_json(records: list[dict], hashseed: str) -> dict:
    """What `prism score --json` prints: the same bytes whatever engine scored the pairs."""
    summary = summarize(records)
    from prism_lsp.model.report import SCHEMA_VERSION

    return {
        "schema_version": SCHEMA_VERSION,
        "hashseed": hashseed,
        "pairs": [pair_row(r) for r in records],
        "summary": summary["overall"],
        "by_suite": summary["by_suite"],
        "errors": summary["errors"],
    }

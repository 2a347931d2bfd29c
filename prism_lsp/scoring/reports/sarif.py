"""SARIF 2.1.0: every finding of every pair as a result at its suite file and lines; one rule per finding kind.

Levels follow the server's default severities (DESIGN.md). Pairs that could not be scored are
tool execution notifications of the run (and make it `executionSuccessful: false`), not results:
they say nothing about a line of a suite.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath

from prism_lsp import __version__
from prism_lsp.scoring.text import clean

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# kind -> (SARIF level, one-line description)
RULES = {
    "rejects-valid": ("warning", "The suite rejects a valid implementation (over-specification)."),
    "accepts-invalid": ("note", "The suite accepts an invalid implementation (under-assertion or missing input)."),
    "misses-baseline": ("warning", "The suite passes on the initial program: it does not detect the bug."),
    "execution-error": ("error", "The suite could not be run on a program (collection error, timeout, crash)."),
    "weak-assertion": ("note", "An assertion that checks too little (type-only, empty-input-only, length-only...)."),
    "unstable": ("warning", "A test seen with two outcomes on one program (hash order, time, randomness)."),
}


def _uri(path: str) -> str:
    p = PurePath(path)
    return Path(path).resolve().as_uri() if p.is_absolute() else p.as_posix()


def _rule_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("-"))


def sarif_log(records: list[dict]) -> dict:
    rule_ids = list(RULES)
    results, notifications = [], []
    for r in records:
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(r["suite_file"])}}}
        if r["status"] != "ok":
            notifications.append({"level": "error", "message": {"text": clean(f"{r['task']}: {r['error']}")},
                                  "locations": [location]})
            continue
        for f in r["report"]["findings"]:
            start = max(1, int(f["line"]))
            region = {"startLine": start, "endLine": max(start, int(f["end_line"]))}
            results.append({
                "ruleId": f["kind"], "ruleIndex": rule_ids.index(f["kind"]), "level": RULES[f["kind"]][0],
                "message": {"text": clean(f["message"]) or f["kind"]},
                "locations": [{"physicalLocation": {**location["physicalLocation"], "region": region}}],
                "properties": {"task": r["task"], "suite": r["suite"],
                               "candidates": [clean(c) for c in f["candidates"]], "tests": [clean(t) for t in f["tests"]]},
            })
    rules = [{"id": kind, "name": _rule_name(kind), "shortDescription": {"text": text},
              "defaultConfiguration": {"level": level}} for kind, (level, text) in RULES.items()]
    invocation = {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}
    return {"$schema": SCHEMA_URI, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "prism", "version": __version__, "rules": rules}},
                      "invocations": [invocation], "results": results}]}


def write_sarif(records: list[dict], path: Path) -> None:
    Path(path).write_text(json.dumps(sarif_log(records), indent=2) + "\n", encoding="utf-8")

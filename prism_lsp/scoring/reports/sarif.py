"""SARIF 2.1.0: every finding of every record as a result at its suite file and lines; one rule per finding kind.

Shaped for GitHub code scanning as it is: suite files under the source root are
repository-relative URIs against `%SRCROOT%` (declared in `originalUriBaseIds`), so alerts land
on the file in the checkout whatever folder CI cloned into; each result has a
`partialFingerprints` entry that does not move with line numbers (rule, file, the line's text,
tests, candidates), so a rerun after an edit above it updates the alert instead of adding one;
the run has an `automationDetails.id` (`prism/<command>/`), so the reports of `prism run`,
`prism gate` and `prism score` are separate categories; every rule has `help` and a `helpUri`: the
`file:` URI of its section of the findings document shipped in the package (Prism has no public
web page; the driver has no `informationUri` for that reason).
Levels follow the server's default severities (DESIGN.md). Records that could not be scored are
tool execution notifications of the run (and make it `executionSuccessful: false`), not results:
they say nothing about a line of a suite.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from prism_lsp import __version__
from prism_lsp.findings_doc import finding_uri
from prism_lsp.scoring.text import clean

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "prismFinding/v1"
# kind -> (SARIF level, one-line description, what to do about it)
RULES = {
    "rejects-valid": (
        "warning",
        "The suite rejects a valid implementation (over-specification).",
        "Assert only what the statement requires: a valid implementation differs here.",
    ),
    "accepts-invalid": (
        "note",
        "The suite accepts an invalid implementation (under-assertion or missing input).",
        "Strengthen the check or add the input that tells the invalid implementation apart "
        "(`prism suggest` proposes one, verified on the panel).",
    ),
    "misses-baseline": (
        "warning",
        "The suite passes on the initial program: it does not detect the bug.",
        "Add a test that fails before the fix and passes after it.",
    ),
    "execution-error": (
        "error",
        "The suite could not be run on a program (collection error, timeout, crash).",
        "Fix the error the message names; an error is never a correct verdict.",
    ),
    "weak-assertion": (
        "note",
        "An assertion that checks too little (type-only, empty-input-only, length-only...).",
        "Compare the value itself, not only its type, length or emptiness.",
    ),
    "unstable": (
        "warning",
        "A test seen with two outcomes on one program (hash order, time, randomness).",
        "Make the test deterministic: sort sets and dict keys of strings, fix the clock and the random seed.",
    ),
}


def _rule_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("-"))


def _location(suite_file: str, root: Path | None) -> tuple[dict, str]:
    """(artifactLocation, the path the fingerprint keys on) of a suite file."""
    path = Path(suite_file)
    absolute = path if path.is_absolute() else (root or Path.cwd()) / path
    absolute = Path(absolute).resolve()
    if root is not None and absolute.is_relative_to(root):
        rel = absolute.relative_to(root).as_posix()
        return {"uri": rel, "uriBaseId": SRCROOT}, rel
    return {"uri": absolute.as_uri()}, absolute.as_posix()


def _line_text(suite_file: str, line: int, cache: dict) -> str:
    if suite_file not in cache:
        try:
            cache[suite_file] = Path(suite_file).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[suite_file] = []
    lines = cache[suite_file]
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _fingerprint(parts: list[str], seen: Counter) -> str:
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]
    seen[digest] += 1  # two findings alike in everything keep two alerts
    return f"{digest}:{seen[digest]}"


def sarif_log(records: list[dict], *, root: Path | None = None, command: str = "score") -> dict:
    """The SARIF log of `records` (see `reports.records`); `root`: the source root URIs are relative to."""
    root = root.resolve() if root is not None else None
    rule_ids = list(RULES)
    results, notifications = [], []
    texts: dict = {}
    seen: Counter = Counter()
    for r in records:
        artifact, keyed = _location(r["suite_file"], root)
        if r["status"] != "ok":
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": clean(f"{r['task']}: {r['error']}")},
                    "locations": [{"physicalLocation": {"artifactLocation": artifact}}],
                }
            )
            continue
        for f in r["report"]["findings"]:
            start = max(1, int(f["line"]))
            region = {"startLine": start, "endLine": max(start, int(f["end_line"]))}
            candidates, tests = [clean(c) for c in f["candidates"]], [clean(t) for t in f["tests"]]
            parts = [f["kind"], keyed, _line_text(r["suite_file"], start, texts), *tests, "|", *candidates]
            results.append(
                {
                    "ruleId": f["kind"],
                    "ruleIndex": rule_ids.index(f["kind"]),
                    "level": RULES[f["kind"]][0],
                    "message": {"text": clean(f["message"]) or f["kind"]},
                    "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
                    "partialFingerprints": {FINGERPRINT: _fingerprint(parts, seen)},
                    "properties": {"task": r["task"], "suite": r["suite"], "candidates": candidates, "tests": tests},
                }
            )
    rules = [
        {
            "id": kind,
            "name": _rule_name(kind),
            "shortDescription": {"text": text},
            "fullDescription": {"text": text},
            "help": {"text": f"{text} {advice}", "markdown": f"**{text}**\n\n{advice}"},
            # The kind's section of the findings document shipped in the package (`findings_doc`).
            "helpUri": finding_uri(kind),
            "defaultConfiguration": {"level": level},
        }
        for kind, (level, text, advice) in RULES.items()
    ]
    invocation = {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications}
    run = {
        "tool": {"driver": {"name": "prism", "version": __version__, "rules": rules}},
        "automationDetails": {"id": f"prism/{command}/"},
        "invocations": [invocation],
        "results": results,
    }
    if root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": root.as_uri().rstrip("/") + "/"}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write_sarif(records: list[dict], path: Path, *, root: Path | None = None, command: str = "score") -> None:
    Path(path).write_text(json.dumps(sarif_log(records, root=root, command=command), indent=2) + "\n", encoding="utf-8")

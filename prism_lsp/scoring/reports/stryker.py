"""The mutation-testing-report-schema JSON (Stryker's, read by mutation-testing-elements and the
Stryker Dashboard): a panel's invalid candidates as mutants of the reference.

Each invalid candidate is a mutant placed where its program differs from the reference's (its
file's source is the reference's text). Its status comes from the suites' runs on it: rejected
-> Killed (`killedBy`: the tests that failed), accepted with a test reaching its change ->
Survived, accepted with no test reaching it -> NoCoverage, could not run -> Timeout (timed out)
or RuntimeError; `coveredBy` lists the tests that reached its change. Over several suites (a
gate) a mutant is killed when any suite kills it. It needs each candidate's run by name, so only
reports at reveal `full` can be turned into one.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prism_lsp import __version__
from prism_lsp.scoring.text import clean

STRYKER_SCHEMA_VERSION = "2"
_OPERATOR = re.compile(r"mutant of the reference, ([a-z][a-z0-9-]*)")


class MutationReportError(Exception):
    """The runs cannot be written as a mutation report (reveal below `full`, no invalid candidate)."""


@dataclass(frozen=True)
class Place:
    """Where a candidate differs from the reference: file, 1-based lines [start, end], replacement text."""

    file: str
    start: int
    end: int
    end_column: int
    replacement: str


def place_of(reference: dict[str, str], candidate: dict[str, str]) -> Place | None:
    """The first place `candidate`'s files (rel path -> text) differ from `reference`'s; None if nowhere."""
    for rel in sorted(set(reference) | set(candidate)):
        old, new = reference.get(rel, "").splitlines(), candidate.get(rel, "").splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            start = min(i1 + 1, max(len(old), 1))
            end = max(start, i2)
            end_column = len(old[end - 1]) + 1 if 0 < end <= len(old) else 1
            return Place(rel, start, end, end_column, "\n".join(new[j1:j2]))
    return None


def _test_id(suite: str, name: str) -> str:
    return f"{suite}::{name}"


def _status(runs: list[tuple[str, dict]]) -> tuple[str, list[str], list[str], str]:
    """(status, killedBy, coveredBy, statusReason) of one candidate over the suites' runs of it."""
    killed, covered, reasons, errors = [], [], [], []
    for suite, c in runs:
        covered += [_test_id(suite, t["name"]) for t in c["tests"] if t.get("reached_change")]
        if c["outcome"] == "fail":
            failing = [t for t in c["tests"] if t["outcome"] != "pass"]
            killed += [_test_id(suite, t["name"]) for t in failing]
            reasons += [clean(t.get("message") or "", 300) for t in failing if t.get("message")]
        elif c["outcome"] == "error":
            errors.append((c.get("reason"), clean(c.get("message") or c.get("reason") or "could not run", 300)))
    if killed:
        return "Killed", killed, covered, "; ".join(reasons)[:1000]
    if errors:
        return ("Timeout" if any(r == "timeout" for r, _ in errors) else "RuntimeError"), [], covered, errors[0][1]
    reached_known = any(t.get("reached_change") is not None for _, c in runs for t in c["tests"])
    if reached_known and not covered:
        return "NoCoverage", [], [], "no test reached the lines this candidate changes"
    return "Survived", [], covered, "every suite accepted it"


def mutation_report(
    records: list[dict],
    sources: dict[str, str],
    places: dict[str, Place],
    notes: dict[str, str],
    suite_texts: dict[str, str],
) -> dict:
    """The report of `records` (reveal `full`): `sources` the reference's files, `places` each invalid
    candidate's place, `notes` their notes, `suite_texts` each suite's text by its path in the task."""
    from prism_lsp.model.report import SCHEMA_VERSION

    ok = [r for r in records if r["status"] == "ok"]
    if any(r["report"].get("reveal", "full") != "full" for r in ok):
        raise MutationReportError("a mutation report names every candidate: it needs reveal `full`")
    runs: dict[str, list[tuple[str, dict]]] = {}
    for r in ok:
        for c in r["report"]["candidates"]:
            if c["label"] == "invalid":
                runs.setdefault(c["id"], []).append((r["suite"], c))
    files: dict[str, dict] = {}
    for cid, cand_runs in sorted(runs.items()):
        place = places.get(cid)
        if place is None:
            continue  # changes nothing the reference has: no place to show it
        status, killed, covered, reason = _status(cand_runs)
        note = notes.get(cid, "")
        found = _OPERATOR.match(note)
        mutant = {
            "id": cid,
            "mutatorName": found.group(1) if found else "candidate",
            "location": {
                "start": {"line": place.start, "column": 1},
                "end": {"line": place.end, "column": place.end_column},
            },
            "status": status,
            "replacement": place.replacement,
            "description": note or cid,
            "killedBy": killed,
            "coveredBy": covered,
        }
        if reason:
            mutant["statusReason"] = reason
        entry = files.setdefault(
            place.file, {"language": "python", "source": sources.get(place.file, ""), "mutants": []}
        )
        entry["mutants"].append(mutant)
    test_files: dict[str, dict] = {}
    for r in ok:
        names: dict[str, int | None] = {}
        for program in [r["report"]["baseline"], *r["report"]["candidates"]]:
            for t in program["tests"]:
                names.setdefault(t["name"], t.get("def_line"))
        tests = [
            {
                "id": _test_id(r["suite"], n),
                "name": n,
                **({"location": {"start": {"line": line, "column": 1}}} if line else {}),
            }
            for n, line in names.items()
        ]
        test_files[r["suite"]] = {
            "tests": tests,
            **({"source": suite_texts[r["suite"]]} if r["suite"] in suite_texts else {}),
        }
    return {
        "schemaVersion": STRYKER_SCHEMA_VERSION,
        "thresholds": {"high": 80, "low": 60},
        "files": files,
        "testFiles": test_files,
        "framework": {"name": "Prism", "version": __version__},
        "config": {"prism_schema_version": SCHEMA_VERSION},
    }


def _texts(tree: Path, rels) -> dict[str, str]:
    out = {}
    for rel in rels:
        path = tree / rel
        if path.is_file():
            out[rel] = path.read_text(encoding="utf-8", errors="replace")
    return out


def mutation_report_of_task(records: list[dict], task, cache) -> dict:
    """`mutation_report` with the reference's and candidates' files read from the built trees (`cache`: a TreeCache)."""
    invalid = [c for c in task.candidates if not c.valid]
    if not invalid:
        raise MutationReportError("the panel has no invalid candidate: there is no mutant to report")
    ref_tree = cache.candidate(task, task.reference)
    places: dict[str, Any] = {}
    sources: dict[str, Any] = {}
    for cand in invalid:
        tree = cache.candidate(task, cand)
        rels = sorted(set(ref_tree.changed) | set(tree.changed))
        ref_texts = _texts(ref_tree.path, rels)
        place = place_of(ref_texts, _texts(tree.path, rels))
        if place is not None:
            places[cand.id] = place
            sources.setdefault(place.file, ref_texts.get(place.file, ""))
    suites = {
        r["suite"]: Path(r["suite_file"]).read_text(encoding="utf-8", errors="replace")
        for r in records
        if r["status"] == "ok" and Path(r["suite_file"]).is_file()
    }
    return mutation_report(records, sources, places, {c.id: c.note for c in invalid}, suites)


def write_mutation_report(report: dict, path: Path) -> None:
    Path(path).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")

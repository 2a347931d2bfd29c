"""`--mutation-report`: the panel's invalid candidates as Stryker's mutation-testing-report-schema JSON,
validated against the published schema (schemas/, see README.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from prism_lsp.scoring.reports.stryker import MutationReportError, mutation_report, place_of
from prism_lsp.tasks import load_task
from tests.gate.change_repo import gate
from tests.repo.gitrepo import status

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "mutation-testing-report-schema.json").read_text())
TEST_ID = "tests/test_util.py::test_clamp_caps_at_high"


def validate(report: dict) -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    jsonschema.validate(report, SCHEMA, cls=jsonschema.Draft7Validator)


def test_the_gate_writes_the_mutants_as_stryker_reads_them(fixed_repo, tmp_path, capsys, cache_dir):
    out = tmp_path / "mutation.json"
    code, _, err = gate(capsys, cache_dir, fixed_repo, "--base", "HEAD~1", "--mutation-report", str(out))
    assert code == 1, err
    report = json.loads(out.read_text())
    validate(report)
    util = report["files"]["util.py"]
    assert util["language"] == "python" and "max(low, min(x, high))" in util["source"]  # the reference's text
    statuses = {m["status"] for m in util["mutants"]}
    invalid = [c for c in load_task(fixed_repo).candidates if not c.valid]
    assert len(util["mutants"]) == len(invalid) >= 3 and statuses == {"Killed", "Survived"}
    for m in util["mutants"]:
        assert m["location"]["start"]["line"] == 3  # the line the fix changed, where every mutant is
        assert m["coveredBy"] == [TEST_ID]
        assert m["killedBy"] == ([TEST_ID] if m["status"] == "Killed" else [])
    assert report["testFiles"]["tests/test_util.py"]["tests"] == [
        {"id": TEST_ID, "name": "test_clamp_caps_at_high", "location": {"start": {"line": 4, "column": 1}}}
    ]
    assert status(fixed_repo) == ""


def _record(candidates, reveal="full"):
    report = {"reveal": reveal, "baseline": {"tests": [{"name": "test_a", "def_line": 1}]}, "candidates": candidates}
    return {
        "task": "t",
        "suite": "test_x.py",
        "suite_file": "test_x.py",
        "status": "ok",
        "error": None,
        "report": report,
    }


def _cand(cid, outcome, reached, reason=None):
    return {
        "id": cid,
        "label": "invalid",
        "outcome": outcome,
        "reason": reason,
        "message": "",
        "tests": [
            {
                "name": "test_a",
                "outcome": "fail" if outcome == "fail" else "pass",
                "reached_change": reached,
                "message": "assert 1 == 2",
            }
        ],
    }


def test_each_outcome_maps_to_its_status():
    cands = [
        _cand("killed", "fail", True),
        _cand("survived", "pass", True),
        _cand("uncovered", "pass", False),
        _cand("slow", "error", True, "timeout"),
        _cand("broken", "error", True, "crash"),
    ]
    sources = {"m.py": "def f(x):\n    return x\n"}
    places = {c["id"]: place_of(sources, {"m.py": "def f(x):\n    return -x\n"}) for c in cands}
    report = mutation_report([_record(cands)], sources, places, {}, {"test_x.py": "def test_a(): ..."})
    validate(report)
    got = {m["id"]: (m["status"], m["killedBy"], m["coveredBy"]) for m in report["files"]["m.py"]["mutants"]}
    assert got == {
        "killed": ("Killed", ["test_x.py::test_a"], ["test_x.py::test_a"]),
        "survived": ("Survived", [], ["test_x.py::test_a"]),
        "uncovered": ("NoCoverage", [], []),
        "slow": ("Timeout", [], ["test_x.py::test_a"]),
        "broken": ("RuntimeError", [], ["test_x.py::test_a"]),
    }
    m = report["files"]["m.py"]["mutants"][0]
    assert m["location"] == {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 13}}
    assert m["replacement"] == "    return -x"


def test_a_report_below_reveal_full_is_refused():
    with pytest.raises(MutationReportError, match="reveal `full`"):
        mutation_report([_record([], reveal="labels")], {}, {}, {}, {})


def test_the_schema_check_can_fail():
    report = mutation_report(
        [_record([_cand("k", "fail", True)])],
        {"m.py": "a\n"},
        {"k": place_of({"m.py": "a\n"}, {"m.py": "b\n"})},
        {},
        {},
    )
    report["files"]["m.py"]["mutants"][0]["status"] = "Dead"
    with pytest.raises(jsonschema.ValidationError):
        validate(report)

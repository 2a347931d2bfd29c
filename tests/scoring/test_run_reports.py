"""Reports from any run: `prism run --sarif/--junit` and, in GitHub Actions, annotations and a step summary;
the SARIF is what GitHub code scanning takes (relative URIs, fingerprints that survive an edit above)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import junitparser

from prism_lsp.scoring.reports.github import escape_property, step_summary, workflow_commands
from prism_lsp.scoring.reports.sarif import sarif_log
from tests.conftest import FIXTURES
from tests.scoring.conftest import prism

SCHEMA = Path(__file__).parent / "schemas" / "sarif-2.1.0-rtm.5.json"
SUITE = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


def test_prism_run_writes_sarif_junit_and_github_annotations(tmp_path, score_cache):
    sarif, junit, summary = tmp_path / "run.sarif", tmp_path / "run.xml", tmp_path / "summary.md"
    proc = prism(
        "run",
        str(SUITE.parent.parent),
        str(SUITE),
        "--json",
        "--sarif",
        str(sarif),
        "--junit",
        str(junit),
        "--cache-dir",
        str(score_cache),
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert proc.returncode == 1, proc.stderr  # the overfit suite has no joint success
    report = json.loads(proc.stdout)  # annotations go to stderr: stdout stays JSON
    assert report["schema_version"] == 1
    log = json.loads(sarif.read_text())
    jsonschema.validate(log, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    run = log["runs"][0]
    assert run["automationDetails"]["id"] == "prism/run/"
    over = next(r for r in run["results"] if r["ruleId"] == "rejects-valid")
    artifact = over["locations"][0]["physicalLocation"]["artifactLocation"]
    base = Path(unquote(urlparse(run["originalUriBaseIds"][artifact["uriBaseId"]]["uri"]).path))
    assert not Path(artifact["uri"]).is_absolute() and base / artifact["uri"] == SUITE.resolve()
    assert over["locations"][0]["physicalLocation"]["region"]["startLine"] == 14
    cases = [case for suite in junitparser.JUnitXml.fromfile(str(junit)) for case in suite]
    assert len(cases) == 11 and sum(any(isinstance(r, junitparser.Failure) for r in c.result) for c in cases) > 0
    annotations = [line for line in proc.stderr.splitlines() if line.startswith("::")]
    assert any(
        line.startswith(f"::warning file={artifact['uri']},line=14,endLine=14,title=prism rejects-valid::")
        for line in annotations
    ), proc.stderr
    assert "| suites/test_overfit.py | yes | yes | 25% | 60% | no |" in summary.read_text()


def test_no_annotations_outside_github_actions(tmp_path, score_cache):
    proc = prism(
        "run",
        str(SUITE.parent.parent),
        str(SUITE),
        "--cache-dir",
        str(score_cache),
        env={"GITHUB_ACTIONS": "", "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")},
    )
    assert proc.returncode == 1 and "::warning" not in proc.stderr + proc.stdout
    assert not (tmp_path / "s.md").exists()


def _record(suite: Path, line: int, message: str) -> dict:
    finding = {
        "kind": "accepts-invalid",
        "line": line,
        "end_line": line,
        "candidates": ["bad"],
        "tests": ["test_x"],
        "message": message,
    }
    return {
        "task": "t",
        "suite": suite.name,
        "suite_file": str(suite),
        "status": "ok",
        "error": None,
        "report": {
            "findings": [finding],
            "metrics": {
                "detects_baseline": True,
                "rar": True,
                "jsf": False,
                "valid_acceptance": None,
                "invalid_rejection": 0.5,
            },
        },
    }


def test_a_fingerprint_survives_lines_added_above_the_finding(tmp_path):
    suite = tmp_path / "test_x.py"
    suite.write_text("import m\n\n\ndef test_x():\n    assert m.f(1)\n")
    first = sarif_log([_record(suite, 4, "lets `bad` through")], root=tmp_path)["runs"][0]["results"][0]
    suite.write_text("import m\nimport os\n\n\n\ndef test_x():\n    assert m.f(1)\n")
    moved = sarif_log([_record(suite, 6, "lets `bad` through")], root=tmp_path)["runs"][0]["results"][0]
    assert first["partialFingerprints"] == moved["partialFingerprints"]
    suite.write_text("import m\n\n\ndef test_y():\n    assert m.f(1)\n")
    other = sarif_log([_record(suite, 4, "lets `bad` through")], root=tmp_path)["runs"][0]["results"][0]
    assert other["partialFingerprints"] != first["partialFingerprints"]


def test_workflow_commands_escape_what_a_sandbox_wrote(tmp_path):
    suite = tmp_path / "odd, name:1.py"
    suite.write_text("x\n")
    forged = "100% sure\n::error file=x.py::forged\r"
    lines = workflow_commands([_record(suite, 1, forged)], tmp_path)
    assert lines == [
        "::notice file=odd%2C name%3A1.py,line=1,endLine=1,title=prism accepts-invalid::"
        "100%25 sure%0A::error file=x.py::forged%0D"
    ]
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    table = step_summary([_record(suite, 1, "x")], "prism | <b>gate</b>")
    assert "### prism \\| &lt;b>gate&lt;/b>" in table

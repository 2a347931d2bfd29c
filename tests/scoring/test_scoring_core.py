"""The scoring core without a sandbox: pair discovery, aggregation with error rows, and the reports' escaping."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from rich.console import Console

from prism_lsp.model.manifest import ManifestError
from prism_lsp.scoring.aggregate import summarize, summary_json
from prism_lsp.scoring.job import HASH_SEED, Job, JobOptions, identify, without_addresses
from prism_lsp.scoring.pairs import discover_pairs
from prism_lsp.scoring.reports.html import html_page
from prism_lsp.scoring.reports.junit import junit_xml
from prism_lsp.scoring.reports.sarif import sarif_log
from prism_lsp.scoring.reports.table import render_table
from prism_lsp.scoring.store import ResultStore
from tests.conftest import FIXTURES

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-2.1.0-rtm.5.json").read_text())
TASK = FIXTURES / "mean-rounded"


def test_pairs_from_every_kind_of_spec(tmp_path, monkeypatch):
    listing = tmp_path / "pairs.txt"
    listing.write_text(
        f"# a comment\n\n{TASK}:{TASK}/suites/test_weak.py  # trailing comment\nrel-task:rel-task/suite.py\n"
    )
    suite = TASK / "suites" / "test_strong.py"
    pairs = discover_pairs(
        [str(listing), f"{TASK}:{suite}", str(suite), str(FIXTURES)], suite_name="suites/test_blind.py"
    )
    got = [(p.index, p.task_dir, p.suite_path) for p in pairs]
    assert got[:4] == [
        (0, TASK, TASK / "suites" / "test_weak.py"),
        (1, tmp_path / "rel-task", tmp_path / "rel-task" / "suite.py"),  # relative to the file
        (2, TASK, suite),
        (3, TASK, suite),
    ]
    assert [p.task_dir.name for p in pairs[4:]] == sorted(p.parent.name for p in FIXTURES.glob("*/prism.toml"))
    globbed = discover_pairs([str(TASK)], suite_name="suites/test_*.py")
    assert [p.suite_path.name for p in globbed] == [
        "test_blind.py",
        "test_overfit.py",
        "test_strong.py",
        "test_weak.py",
    ]


@pytest.mark.parametrize(
    "specs, suite_name, message",
    [
        (["no/such/thing"], None, "no such task folder, suite or pairs file"),
        ([str(FIXTURES)], None, "needs --suite-name"),
    ],
)
def test_specs_that_name_nothing_are_usage_errors(specs, suite_name, message):
    with pytest.raises(ManifestError, match=message):
        discover_pairs(specs, suite_name)


def test_a_malformed_pairs_line_is_named(tmp_path):
    listing = tmp_path / "pairs.txt"
    listing.write_text("only-a-task\n")
    with pytest.raises(ManifestError, match=rf"{listing}:1.*expected TASK:SUITE"):
        discover_pairs([str(listing)])


def _record(task: str, suite: str, metrics: dict, findings=(), tests=()) -> dict:
    program = {"outcome": "fail", "reason": None, "message": "", "line": None, "tests": list(tests)}
    return {
        "task": task,
        "suite": suite,
        "suite_file": f"{task}/{suite}",
        "status": "ok",
        "error": None,
        "hashseed": HASH_SEED,
        "report": {
            "baseline": program,
            "metrics": metrics,
            "findings": list(findings),
            "candidates": [
                {
                    **program,
                    "outcome": "pass",
                    "id": "reference",
                    "label": "valid",
                    "reference": True,
                    "verdict": "accepted",
                    "correct": True,
                    "note": "",
                }
            ],
        },
    }


M1 = {
    "detects_baseline": True,
    "rar": True,
    "jsf": False,
    "valid_acceptance": 0.75,
    "invalid_rejection": 1 / 3,
    "h": 0.4615,
}
M2 = {"detects_baseline": True, "rar": True, "jsf": True, "valid_acceptance": None, "invalid_rejection": 1.0, "h": None}
ERROR = {
    "task": "gone",
    "suite": "x.py",
    "suite_file": "gone/x.py",
    "status": "error",
    "error": "gone: no prism.toml",
    "hashseed": HASH_SEED,
    "report": None,
}


def test_error_rows_are_counted_and_left_out_of_the_rates():
    s = summarize([_record("a", "s.py", M1), ERROR, _record("b", "s.py", M2)])
    assert s["errors"] == 1 and s["pairs"] == 3
    # valid acceptance: only a's rate is defined; invalid rejection: mean of 1/3 and 1; H from the rounded values.
    assert s["overall"]["valid_acceptance"] == 75.0 and s["overall"]["invalid_rejection"] == 66.67
    assert s["overall"]["h"] == round(2 * 75.0 * 66.67 / (75.0 + 66.67), 2)
    assert s["overall"]["jsf"] == 50.0 and s["overall"]["tasks"] == 2
    out = summary_json([ERROR], HASH_SEED)
    assert (
        out["pairs"]
        == [{"task": "gone", "suite": "x.py", "status": "error", "error": "gone: no prism.toml", "metrics": None}]
        and out["summary"]["rar"] is None
    )


def test_table_shows_rates_in_percent_and_error_rows():
    console = Console(record=True, width=200)
    render_table([_record("a", "s.py", M1), ERROR], console)
    text = console.export_text()
    assert "75.00" in text and "33.33" in text and "46.15" in text
    assert "error: gone: no prism.toml" in text and "1 of 2 pairs could not be scored" in text


HOSTILE = "<script>alert(1)</script>\x1b[31m\x00"


def test_text_from_the_sandbox_is_escaped_everywhere():
    finding = {
        "kind": "rejects-valid",
        "line": 3,
        "end_line": 3,
        "candidates": [HOSTILE],
        "message": HOSTILE,
        "tests": [HOSTILE],
    }
    record = _record("a", "s.py", M1, findings=[finding], tests=[{"name": HOSTILE, "outcome": "fail"}])
    page = html_page([record])
    assert "<script>" not in page and "&lt;script&gt;" in page and "\x00" not in page and "\x1b" not in page
    xml = ET.tostring(junit_xml([record, ERROR]).getroot(), encoding="unicode")
    ET.fromstring(xml)  # control characters would make it unparsable
    log = sarif_log([record, ERROR])
    jsonschema.validate(log, SCHEMA, cls=jsonschema.Draft4Validator)
    assert "\x00" not in json.dumps(log, ensure_ascii=False)


def test_addresses_are_normalized():
    text = "where False = <built-in method endswith of str object at 0x7f197a48bb30>(':15')"
    assert without_addresses({"a": [text]}) == {"a": [text.replace("0x7f197a48bb30", "0x…")]}


def test_store_reuses_only_reports_valid_for_the_same_task_suite_and_options(tmp_path):
    job = identify(discover_pairs([f"{TASK}:{TASK}/suites/test_strong.py"])[0])
    assert isinstance(job, Job)
    store = ResultStore(tmp_path / "out")
    options = JobOptions()
    record = {
        **_record(job.task_id, job.suite_rel, M1),
        "suite_digest": job.suite_digest,
        "task_digest": job.task_digest,
        "options": {"sandbox": None, "timeout_s": None},
    }
    store.save(job, record, 12.0, "local")
    assert store.load(job, options) == record
    assert store.load(job, JobOptions(timeout_s=3.0)) is None  # other options: score again
    changed = Job(job.pair, job.task_id, job.suite_rel, job.suite_text, job.suite_digest, "0" * 64)
    assert store.load(changed, options) is None  # the task changed since
    store.path(job).write_text("{not json")
    assert store.load(job, options) is None
    store.save(job, ERROR, 1.0, "local")  # error rows are not stored
    assert [j["where"] for j in store.journal_lines()] == ["local"]


def test_engine_ray_without_ray_installed_is_a_usage_error(tmp_path):
    """Ray is an optional extra: without it, `--engine ray` says how to install it (exit 2), nothing else runs."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['ray'] = None  # as if the extra were not installed\n"
        "from prism_lsp.cli import prism_main; prism_main()"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "score",
            f"{TASK}:{TASK}/suites/test_strong.py",
            "--engine",
            "ray",
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: --engine ray needs Ray") and "pip install -e '.[ray]'" in proc.stderr
    assert "Traceback" not in proc.stderr

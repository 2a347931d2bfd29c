"""`prism run` against the adaptive author of issue 21, and the `sealed` level, on the real sandbox.

At `counts` the report (JSON and table) must be the same whichever test flags which candidate:
no line, test or assertion of a candidate's run. At `sealed` only the initial program's outcome
and the static hints, an exit status that does not depend on the panel, and the manifest's
`sealed` holds against `--reveal full`.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.conftest import ROOT
from tests.surface.buckets import bucket_task, write_suites
from tests.surface.forger import PRISM


def prism(*args: str, cache) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PRISM, *args, "--cache-dir", str(cache)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = bucket_task(tmp_path_factory.mktemp("buckets") / "task")
    write_suites(root)
    return root


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("buckets-cache")


def _panel_part(report: dict) -> dict:
    """What a report says beyond the initial program (no secret: the author has it) and the clock."""
    return {k: v for k, v in report.items() if k not in ("suite", "baseline", "timing_ms")}


def test_at_counts_the_report_is_the_same_whichever_test_flags_which_candidate(task, cache):
    shown = []
    for suite in ("test_buckets.py", "test_buckets_shifted.py"):
        proc = prism("run", str(task), str(task / suite), "--reveal", "counts", "--json", cache=cache)
        assert proc.returncode == 1, proc.stderr  # every candidate fails one test: no JSF
        report = json.loads(proc.stdout)
        assert report["reveal"] == "counts" and report["candidates"] == []
        assert report["panel"] == {"valid_accepted": 0, "valid": 2, "invalid_rejected": 3, "invalid": 3, "errors": 0}
        assert [f["kind"] for f in report["findings"]] == []  # the baseline fails: no finding of its own
        shown.append(_panel_part(report))
    assert shown[0] == shown[1]
    table = prism("run", str(task), str(task / "test_buckets.py"), "--reveal", "counts", cache=cache).stdout
    assert not re.search(r"\bline \d", table) and "test_bucket_" not in table and "findings" not in table
    assert "panel: valid 0/2 besides the reference · invalid 3/3" in table


def test_at_labels_the_same_attack_reads_the_buckets(task, cache):
    # The level that promises labels does show lines: the two suites' reports differ there.
    lines = []
    for suite in ("test_buckets.py", "test_buckets_shifted.py"):
        proc = prism("run", str(task), str(task / suite), "--reveal", "labels", "--json", cache=cache)
        lines.append(sorted(f["line"] for f in json.loads(proc.stdout)["findings"] if f["kind"] == "rejects-valid"))
    assert lines[0] and lines[0] != lines[1]


def test_at_sealed_only_the_initial_outcome_and_static_hints(task, cache, tmp_path):
    weak = task / "test_weak.py"
    weak.write_text(
        "from solution import add\n\n\ndef test_add():\n    assert isinstance(add(2, 2), int)\n\n\n"
        "def test_add_catches():\n    assert add(2, 2) == 4\n"
    )
    proc = prism("run", str(task), str(weak), "--reveal", "sealed", "--json", cache=cache)
    assert proc.returncode == 0, proc.stderr  # the run completed; JSF is not known, nor anything panel-made
    report = json.loads(proc.stdout)
    assert report["reveal"] == "sealed" and report["candidates"] == [] and report["panel"] is None
    assert report["baseline"]["outcome"] == "fail"
    assert report["metrics"] == {
        "detects_baseline": True,
        "rar": None,
        "jsf": None,
        "valid_acceptance": None,
        "invalid_rejection": None,
        "h": None,
    }
    assert [f["kind"] for f in report["findings"]] == ["weak-assertion"]
    table = prism("run", str(task), str(weak), "--reveal", "sealed", cache=cache)
    assert table.returncode == 0
    assert "panel: sealed" in table.stdout and "JSF" not in table.stdout and "valid" not in table.stdout
    # The exit status does not depend on the panel: a suite no candidate passes exits 0 too.
    assert prism("run", str(task), str(task / "test_buckets.py"), "--reveal", "sealed", cache=cache).returncode == 0


def test_a_sealed_manifest_holds_against_reveal_full(tmp_path, cache):
    task = bucket_task(tmp_path / "task", reveal="sealed")
    suite, _ = write_suites(task)
    proc = prism("run", str(task), str(suite), "--reveal", "full", "--json", cache=cache)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["reveal"] == "sealed"
    assert report["candidates"] == [] and report["panel"] is None and report["metrics"]["jsf"] is None
    assert prism("suggest", str(task), str(suite), "--reveal", "full", cache=cache).returncode == 2


def test_prism_score_scores_a_finished_suite_of_a_sealed_task_at_counts(tmp_path, cache):
    # Sealed hides the panel while the suite is written; whoever scores the finished suite gets the
    # whole-suite numbers (counts), not a report with every metric unknown.
    task = bucket_task(tmp_path / "task", reveal="sealed")
    suite, _ = write_suites(task)
    proc = prism("score", f"{task}:{suite}", "--json", cache=cache)
    assert proc.returncode in (0, 1), proc.stderr
    scored = json.loads(proc.stdout)
    (pair,) = scored["pairs"]
    assert pair["status"] == "ok", pair["error"]
    assert pair["metrics"]["jsf"] is False and pair["metrics"]["valid_acceptance"] == 0.0
    assert scored["summary"]["invalid_rejection"] == 100.0

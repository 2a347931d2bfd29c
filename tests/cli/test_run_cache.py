"""`prism run` twice: the second process takes every result from `<cache>/results/` (the report's
`cache` counts say so) and prints the same verdicts; `--no-cache` and a cache folder inside the
suite's repository keep nothing on disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from tests.conftest import FIXTURES, ROOT

TASK = FIXTURES / "mean-rounded"
SUITE = TASK / "suites" / "test_overfit.py"


def _run(*args: str, cwd=ROOT, task=TASK, suite=SUITE) -> tuple[int, dict, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PRISM_NO_CACHE", "PRISM_CACHE_DIR")}
    p = subprocess.run(
        [shutil.which("prism") or "prism", "run", str(task), str(suite), "--json", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )
    return p.returncode, json.loads(p.stdout), p.stderr


def _verdicts(report: dict) -> tuple:
    return report["metrics"], report["findings"], [(c["id"], c["outcome"], c["tests"]) for c in report["candidates"]]


def test_a_second_run_runs_no_program_and_no_cache_runs_them_all(tmp_path):
    cache = str(tmp_path / "cache")
    code, first, _ = _run("--cache-dir", cache)
    assert code == 1
    assert first["cache"] == {"programs_run": 11, "programs_cached": 0, "tests_run": 3, "tests_cached": 0}
    code, second, _ = _run("--cache-dir", cache)
    assert code == 1
    assert second["cache"] == {"programs_run": 0, "programs_cached": 11, "tests_run": 0, "tests_cached": 3}
    assert _verdicts(second) == _verdicts(first)
    code, third, _ = _run("--cache-dir", cache, "--no-cache")
    assert third["cache"]["programs_run"] == 11 and _verdicts(third) == _verdicts(first)


def test_a_cache_folder_inside_the_suites_repository_keeps_no_results(tmp_path):
    # A repository of its own: Prism's checkout need not be one (test-debian copies it without .git).
    repo = tmp_path / "repo"
    shutil.copytree(TASK, repo / "task")
    (repo / ".git").mkdir()
    task, suite = repo / "task", repo / "task" / "suites" / SUITE.name
    inside = repo / "build" / "prism-cache"
    code, report, err = _run("--cache-dir", str(inside), task=task, suite=suite)
    assert "results are not kept on disk" in err and "inside the repository" in err
    assert not (inside / "results").exists()
    code, again, _ = _run("--cache-dir", str(inside), task=task, suite=suite)
    assert again["cache"]["programs_run"] == 11


def test_score_keeps_no_per_test_results_and_says_its_schema_version(tmp_path):
    """A scored record is the same bytes whatever a cache held (the resume tests compare them), so
    `prism score` keeps its records in `--out` and no per-test results."""
    env = {k: v for k, v in os.environ.items() if k not in ("PRISM_NO_CACHE", "PRISM_CACHE_DIR")}
    p = subprocess.run(
        [shutil.which("prism") or "prism", "score", f"{TASK}:{SUITE}", "--json"]
        + ["--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert p.returncode in (0, 1), p.stderr
    assert json.loads(p.stdout)["schema_version"] == 1
    assert not (tmp_path / "cache" / "results").exists()

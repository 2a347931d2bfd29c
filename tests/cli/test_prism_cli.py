"""The `prism` command as a user runs it: tables, JSON report, exit statuses, doctor, check, score."""

import json
import os
import shutil
import subprocess

import pytest

from prism_lsp.materialize.digest import tree_digest
from tests.conftest import FIXTURES, ROOT

TASK = FIXTURES / "mean-rounded"


def prism(*args, cache=None, cwd=ROOT):
    env = dict(os.environ, COLUMNS="80")  # as narrow as a CI log: nothing a user needs may wrap away
    if cache:
        env["PRISM_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [shutil.which("prism") or "prism", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cli-cache")


def test_run_prints_the_table_findings_and_metrics(cache):
    suite = TASK / "suites" / "test_overfit.py"
    before = (tree_digest(TASK), suite.read_bytes())
    proc = prism("run", str(TASK), str(suite), cache=cache)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "initial program: fail" in out
    assert "half-even" in out and "valid" in out and "rejected" in out
    assert "line 14 [rejects-valid] rejects valid candidate" in out.replace("\n", " ") or "line 14" in out
    assert "expected 3, got 2 from `half-even`, `half-down`, `statistics`" in " ".join(out.split())
    assert "JSF no" in out and "RAR yes" in out
    assert (tree_digest(TASK), suite.read_bytes()) == before


def test_run_exits_zero_when_jsf_holds(cache):
    proc = prism("run", str(TASK), str(TASK / "suites" / "test_strong.py"), cache=cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "JSF yes" in proc.stdout


def test_json_report_has_the_design_shape(cache):
    proc = prism("run", str(TASK), str(TASK / "suites" / "test_overfit.py"), "--json", cache=cache)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert {"task", "suite", "baseline", "candidates", "metrics", "findings", "timing_ms"} <= set(report)
    assert report["task"] == "mean-rounded" and report["suite"] == "suites/test_overfit.py"
    assert report["baseline"]["outcome"] == "fail" and isinstance(report["baseline"]["tests"], list)
    ref = next(c for c in report["candidates"] if c["reference"])
    assert {"id", "label", "reference", "outcome", "verdict", "correct", "tests"} <= set(ref)
    assert ref["verdict"] == "accepted" and ref["correct"] is True
    t = next(t for c in report["candidates"] if c["id"] == "half-even" for t in c["tests"] if t["outcome"] == "fail")
    assert {"name", "outcome", "line", "message"} <= set(t) and t["line"] == 14 and t["message"] == "assert 2 == 3"
    assert report["metrics"] == {
        "detects_baseline": True,
        "rar": True,
        "jsf": False,
        "valid_acceptance": 0.25,
        "invalid_rejection": 0.6,
        "h": 0.3529,
    }
    finding = next(f for f in report["findings"] if f["kind"] == "rejects-valid")
    assert finding["line"] == 14 and finding["end_line"] == 14
    assert sorted(finding["candidates"]) == ["half-down", "half-even", "statistics"]
    assert "total" in report["timing_ms"]


def test_reveal_counts_names_no_candidate(cache):
    proc = prism(
        "run", str(TASK), str(TASK / "suites" / "test_overfit.py"), "--json", "--reveal", "counts", cache=cache
    )
    text = proc.stdout
    for cid in ("half-even", "half-down", "statistics", "trunc-negative", "consumes-input"):
        assert cid not in text
    report = json.loads(text)  # the whole suite's numbers, and no finding of a candidate's run (issue 21)
    assert (report["panel"]["valid"] - report["panel"]["valid_accepted"]) == 3
    assert not [f for f in report["findings"] if f["kind"] in ("rejects-valid", "accepts-invalid")]


def test_a_broken_manifest_is_exit_2_with_a_precise_message(tmp_path, cache):
    task = tmp_path / "task"
    shutil.copytree(TASK, task)
    (task / "prism.toml").write_text(
        (task / "prism.toml").read_text().replace('label = "invalid"', 'label = "wrong"', 1)
    )
    proc = prism("run", str(task), str(task / "suites" / "test_strong.py"), cache=cache)
    assert proc.returncode == 2
    assert "prism.toml" in proc.stderr and ".label" in proc.stderr and "'wrong'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_suite_is_exit_2_with_the_whole_path_on_one_line(tmp_path, cache):
    missing = tmp_path / ("a-folder-with-a-long-name-" * 4) / "test_nope.py"
    proc = prism("run", str(TASK), str(missing), cache=cache)
    assert proc.returncode == 2
    assert proc.stderr == f"error: suite {missing} does not exist\n"


def test_manifest_text_that_looks_like_markup_is_printed_as_written(tmp_path, cache):
    task = tmp_path / "[task]"
    shutil.copytree(TASK, task)
    manifest = (task / "prism.toml").read_text()
    (task / "prism.toml").write_text(
        manifest.replace('note = "rounds half down (ceil of mean - 1/2)"', 'note = "[b]down[/b] [red]x"')
    )
    proc = prism("run", str(task), str(task / "suites" / "test_strong.py"), cache=cache)
    assert proc.returncode == 0, proc.stderr
    assert "[b]down[/b] [red]x" in proc.stdout
    broken = manifest.replace("[task]", "[task.extra]", 1)
    (task / "prism.toml").write_text(broken)
    proc = prism("run", str(task), str(task / "suites" / "test_strong.py"), cache=cache)
    assert proc.returncode == 2 and str(task / "prism.toml") in proc.stderr, proc.stderr


def test_suite_alone_finds_its_task(cache):
    proc = prism("run", str(TASK / "suites" / "test_strong.py"), cache=cache)
    assert proc.returncode == 0


def test_a_suite_with_a_syntax_error_reports_execution_errors(tmp_path, cache):
    suite = TASK / "suites" / "test_broken.py"
    suite_copy = tmp_path / "task"
    shutil.copytree(TASK, suite_copy)
    broken = suite_copy / "suites" / "test_broken.py"
    broken.write_text("from solution import mean_rounded\n\ndef test_x(:\n    pass\n")
    proc = prism("run", str(suite_copy), str(broken), "--json", cache=cache)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["baseline"]["outcome"] == "error" and report["baseline"]["reason"] == "collection"
    errors = [f for f in report["findings"] if f["kind"] == "execution-error"]
    assert errors and errors[0]["line"] == 3
    assert not suite.exists()


def test_a_diff_that_does_not_apply_is_an_error_outcome_and_the_rest_still_run(tmp_path, cache):
    task = tmp_path / "task"
    shutil.copytree(FIXTURES / "slugify", task)
    diff = next((task / "candidates").glob("*.diff"))
    text = diff.read_text().splitlines(keepends=True)
    hunk = next(i for i, line in enumerate(text) if line.startswith("-") and not line.startswith("---"))
    text[hunk] = "-this line is not in the initial program\n"
    diff.write_text("".join(text))
    manifest = (task / "prism.toml").read_text()
    import re

    (task / "prism.toml").write_text(re.sub(r'\nsha256 = "[0-9a-f]+"', "", manifest))
    proc = prism("run", str(task), str(task / "suites" / "test_strong.py"), "--json", cache=cache)
    report = json.loads(proc.stdout)
    broken = next(c for c in report["candidates"] if c["id"] == diff.stem)
    assert broken["outcome"] == "error" and broken["reason"] == "materialize"
    assert "does not apply" in broken["message"] and "solution.py" in broken["message"]
    assert all(c["outcome"] != "error" for c in report["candidates"] if c["id"] != diff.stem)
    assert proc.returncode == 1  # an error anywhere forbids joint success
    check = prism("check", str(task), cache=cache)
    assert check.returncode == 1 and "does not apply" in check.stdout


def test_sandbox_none_is_loudly_reported(cache):
    proc = prism("run", str(TASK), str(TASK / "suites" / "test_strong.py"), "--sandbox", "none", cache=cache)
    assert proc.returncode == 0
    assert "warning" in proc.stdout and "unisolated" in proc.stdout


def test_check_passes_on_a_good_panel(cache):
    proc = prism("check", str(TASK), cache=cache)
    assert proc.returncode == 0 and "panel OK" in proc.stdout


def test_score_aggregates_many_suites(cache):
    proc = prism("score", str(FIXTURES), "--suite-name", "suites/test_strong.py", "--json", cache=cache)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["summary"]["tasks"] == len(list(FIXTURES.glob("*/prism.toml")))
    assert data["summary"]["jsf"] == 100.0 and data["summary"]["h"] == 100.0
    proc = prism(
        "score",
        f"{TASK}:{TASK / 'suites' / 'test_overfit.py'}",
        f"{TASK}:{TASK / 'suites' / 'test_strong.py'}",
        "--json",
        cache=cache,
    )
    summary = json.loads(proc.stdout)["summary"]
    assert summary["jsf"] == 50.0 and summary["valid_acceptance"] == 62.5 and summary["invalid_rejection"] == 80.0


def test_doctor_explains_the_environment():
    proc = prism("doctor")
    assert "bubblewrap" in proc.stdout and "runner" in proc.stdout and "docker" in proc.stdout
    assert proc.returncode == 0


def test_auto_without_any_backend_says_how_to_install_one(tmp_path):
    env = {
        **os.environ,
        "PATH": str(tmp_path),
        "DOCKER_HOST": f"unix://{tmp_path}/no-docker.sock",
        "PRISM_CACHE_DIR": str(tmp_path / "cache"),
    }
    proc = subprocess.run(
        [shutil.which("prism"), "run", str(TASK / "suites" / "test_strong.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "no usable sandbox" in proc.stderr and "apt-get install bubblewrap" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_relative_cache_dir_works(tmp_path):
    proc = subprocess.run(
        [shutil.which("prism"), "run", str(TASK), str(TASK / "suites" / "test_strong.py"), "--cache-dir", "rel-cache"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "rel-cache" / "trees").is_dir()


BAD_VALUES = [
    # 0 used to fall back to the manifest's timeout, -1 to time out every program,
    # nan/inf to crash with an internal error: all are usage errors, caught before running.
    (["--timeout", "0"], "argument --timeout: expected a number of seconds greater than 0 and at most 3600, got '0'"),
    (["--timeout", "-1"], "argument --timeout: expected a number of seconds greater than 0"),
    (["--timeout", "nan"], "got 'nan'"),
    (["--timeout", "inf"], "got 'inf'"),
    (["--timeout", "3601"], "at most 3600, got '3601'"),
    (["--timeout", "soon"], "argument --timeout: expected a number of seconds"),
    (["--workers", "0"], "argument --workers: expected a whole number, at least 1, got '0'"),
    (["--workers", "-3"], "argument --workers: expected a whole number, at least 1, got '-3'"),
    (["--workers", "1.5"], "got '1.5'"),
]


@pytest.mark.parametrize("extra,expected", BAD_VALUES, ids=[" ".join(v[0]) for v in BAD_VALUES])
def test_a_bad_option_value_is_a_one_line_usage_error(tmp_path, extra, expected):
    proc = prism("run", str(TASK), str(TASK / "suites" / "test_strong.py"), *extra, cache=tmp_path / "cache")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert expected in proc.stderr and "prism run --help" in proc.stderr
    assert proc.stdout == "" and not (tmp_path / "cache").exists()  # nothing ran


def test_good_option_values_are_accepted(tmp_path):
    proc = prism(
        "run",
        str(TASK),
        str(TASK / "suites" / "test_strong.py"),
        "--timeout",
        "30",
        "--workers",
        "1",
        cache=tmp_path / "cache",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("command", ["run", "check", "score"])
def test_an_unusable_cache_dir_is_one_clear_error_before_running(tmp_path, command):
    args = {
        "run": [str(TASK), str(TASK / "suites" / "test_strong.py")],
        "check": [str(TASK)],
        "score": [f"{TASK}:{TASK / 'suites' / 'test_strong.py'}"],
    }[command]
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for cache_dir, reason in [
        ("/proc/nope", "cannot create the cache folder /proc/nope (--cache-dir): No such file or directory"),
        (str(a_file), f"cache folder {a_file} (--cache-dir) is a file, not a folder"),
        (str(a_file / "sub"), f"cannot create the cache folder {a_file / 'sub'} (--cache-dir): Not a directory"),
    ]:
        proc = prism(command, *args, "--cache-dir", cache_dir)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr == f"error: {reason}\n"
        assert "materialize" not in proc.stdout
    # The environment variable is checked the same way, and named.
    proc = prism(command, *args, cache="/proc/nope")
    assert proc.returncode == 2 and proc.stderr == (
        "error: cannot create the cache folder /proc/nope (PRISM_CACHE_DIR): No such file or directory\n"
    )


def test_the_cache_dir_check_leaves_nothing_behind(tmp_path):
    cache_dir = tmp_path / "new" / "cache"
    proc = prism("check", str(TASK), "--cache-dir", str(cache_dir))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (cache_dir / "trees").is_dir()
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".prism-write-check")]


def test_ctrl_c_is_a_short_message_not_a_traceback(tmp_path, cache):
    import signal
    import time

    marker = tmp_path / "started"
    suite = tmp_path / "task" / "suites" / "test_slow.py"
    shutil.copytree(TASK, tmp_path / "task")
    suite.write_text(
        f"import pathlib, time\n\ndef test_slow():\n    pathlib.Path({str(marker)!r}).touch()\n    time.sleep(60)\n"
    )
    env = dict(os.environ, PRISM_CACHE_DIR=str(cache))
    proc = subprocess.Popen(
        [shutil.which("prism"), "run", str(tmp_path / "task"), str(suite), "--sandbox", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # A job started in the background by a script inherits SIGINT ignored; Python then never raises
        # KeyboardInterrupt. Ctrl-C at a terminal is the default disposition.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:  # the run is under way
        time.sleep(0.05)
    assert marker.exists()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err

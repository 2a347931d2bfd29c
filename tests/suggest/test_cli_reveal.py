"""`prism suggest`: diffs that `patch -p0` and `git apply` accept, the JSON shape, the author's file
untouched without --write; witnesses and suggestions at `full` and `labels` (no ids), none at `counts`
(in `prism suggest` and in `prism run`'s report)."""

import json
import shutil
import subprocess

from prism_lsp.cli import prism_main
from tests.conftest import FIXTURES

INVALID = ["trunc-negative", "consumes-input", "forgets-last", "median", "ceiling"]


def test_json_diffs_apply_with_patch_and_git_and_nothing_is_written(fixture_copy, cache_dir, capsys):
    task = fixture_copy("mean-rounded")
    suite = task / "suites" / "test_weak.py"
    original = suite.read_text()
    assert prism_main(["suggest", str(task), str(suite), "--json", "--cache-dir", str(cache_dir)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert suite.read_text() == original  # only --write writes
    assert {s["kind"] for s in found} == {"accepts-invalid"}
    for s in found:
        assert set(s) >= {"kind", "line", "title", "new_text", "range", "verified"}
        assert s["verified"]["valid_accepted"] == s["verified"]["valid_total"] == 4  # the reference aside
        assert "still accepts valid 4/4 besides the reference" in s["title"] and "`" in s["title"]
    rejected = set()
    for s in found:
        rejected |= {c for c in INVALID if f"`{c}`" in s["title"]}
    assert rejected == set(INVALID) - {"forgets-last"} or rejected == set(INVALID)
    first = found[0]
    (task / "one.diff").write_text(first["diff"])
    subprocess.run(["git", "apply", "-p0", "--check", "one.diff"], cwd=task, check=True)
    subprocess.run(["patch", "-p0", "-i", "one.diff"], cwd=task, check=True, capture_output=True)
    assert first["new_text"].strip() in suite.read_text()


def test_text_output_shows_titles_and_diffs(fixture_copy, cache_dir, capsys):
    task = fixture_copy("unique-in-order")
    suite = task / "suites" / "test_overfit.py"
    assert prism_main(["suggest", str(task), str(suite), "--cache-dir", str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert "Relax to `assert list(unique([3, 1, 3, 2, 1])) == [3, 1, 2]`" in out
    assert "+    assert list(unique([3, 1, 3, 2, 1])) == [3, 1, 2]" in out
    assert "--- suites/test_overfit.py" in out


def test_labels_show_suggestions_and_witnesses_without_ids(fixture_copy, cache_dir, capsys):
    task = fixture_copy("mean-rounded")
    suite = task / "suites" / "test_weak.py"
    assert (
        prism_main(["suggest", str(task), str(suite), "--json", "--reveal", "labels", "--cache-dir", str(cache_dir)])
        == 0
    )
    text = capsys.readouterr().out
    found = json.loads(text)
    assert found and all("invalid candidate" in s["title"] for s in found)
    assert not any(c in text for c in INVALID)
    prism_main(["run", str(task), str(suite), "--json", "--reveal", "labels", "--cache-dir", str(cache_dir)])
    report = capsys.readouterr().out
    witnesses = [f["witness"] for f in json.loads(report)["findings"] if f.get("witness")]
    assert witnesses and all(k.startswith("invalid-") for w in witnesses for k in w["got"])
    assert not any(c in report for c in INVALID)
    prism_main(["run", str(task), str(suite), "--reveal", "labels", "--cache-dir", str(cache_dir)])
    table = capsys.readouterr().out
    assert "witness: mean_rounded(" in table and "invalid-" in table and not any(c in table for c in INVALID)


def test_full_report_names_the_candidates_a_witness_tells_apart(cache_dir, capsys):
    suite = FIXTURES / "mean-rounded" / "suites" / "test_weak.py"
    prism_main(["run", str(FIXTURES / "mean-rounded"), str(suite), "--json", "--cache-dir", str(cache_dir)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    witnesses = [f["witness"] for f in findings if f["kind"] == "accepts-invalid" and f.get("witness")]
    assert witnesses
    named = {k for w in witnesses for k in w["got"]}
    assert named <= set(INVALID) and named
    for w in witnesses:
        assert w["call"].startswith("mean_rounded(") and w["expected"]


def test_counts_shows_no_suggestion_and_no_witness(fixture_copy, cache_dir, capsys):
    task = fixture_copy("mean-rounded")
    suite = task / "suites" / "test_weak.py"
    original = suite.read_text()
    code = prism_main(
        ["suggest", str(task), str(suite), "--write", "--reveal", "counts", "--cache-dir", str(cache_dir)]
    )
    captured = capsys.readouterr()
    assert code == 2 and "counts" in captured.err and captured.out == ""
    assert suite.read_text() == original
    prism_main(["run", str(task), str(suite), "--json", "--reveal", "counts", "--cache-dir", str(cache_dir)])
    report = capsys.readouterr().out
    assert all(f.get("witness") is None for f in json.loads(report)["findings"])
    assert "mean_rounded([" not in report.replace("mean_rounded([1, 2, 2])", "")
    prism_main(["run", str(task), str(suite), "--reveal", "counts", "--cache-dir", str(cache_dir)])
    assert "witness" not in capsys.readouterr().out


def test_patch_is_installed():
    assert shutil.which("patch") and shutil.which("git")


def test_nothing_to_fix_or_a_broken_suite_is_said_and_nothing_is_written(fixture_copy, cache_dir, capsys):
    task = fixture_copy("mean-rounded")
    strong = task / "suites" / "test_strong.py"
    assert prism_main(["suggest", str(task), str(strong), "--write", "--cache-dir", str(cache_dir)]) == 0
    assert "no verified suggestion" in capsys.readouterr().out
    broken = task / "suites" / "test_broken.py"
    broken.write_text("from solution import mean_rounded\n\ndef test_x(:\n    assert mean_rounded([1]) == 1\n")
    assert prism_main(["suggest", str(task), str(broken), "--write", "--cache-dir", str(cache_dir)]) == 0
    assert "no verified suggestion" in capsys.readouterr().out
    assert broken.read_text().startswith("from solution import mean_rounded\n\ndef test_x(:")

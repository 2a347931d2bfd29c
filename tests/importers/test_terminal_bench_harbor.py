"""Terminal-Bench and Harbor folders with patch sets: imported, then judged end to end by `prism run`."""

from __future__ import annotations

import json

import pytest

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import load_task
from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import diff, prism, run_report, verdicts
from tests.importers.sample_tasks import GREET_BUGGY, GREET_FIXED, WC_AWK, WC_BUGGY, harbor, terminal_bench


def test_terminal_bench_pytest_task_runs_end_to_end(tmp_path):
    src = terminal_bench(tmp_path / "word-count")
    proc = prism("import", "terminal-bench", str(src), str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "3 candidates (2 valid, 1 invalid)" in proc.stdout
    task = load_task(tmp_path / "out")
    assert task.id == "word-count" and task.timeout_s == 30 and task.test_command is None
    assert task.dockerfile is not None and task.dockerfile.read_text().startswith("FROM prism-python:local")
    assert (tmp_path / "out" / "initial" / "wc_words.sh").read_text() == WC_BUGGY
    assert not (tmp_path / "out" / "initial" / "task.yaml").exists()
    assert all(c.sha256 for c in task.candidates)
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "tests" / "test_outputs.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "awk": "pass", "counts-chars": "fail"}
    assert code == 0 and report["metrics"]["jsf"] is True


def test_terminal_bench_with_a_shell_test_command(tmp_path):
    src = terminal_bench(tmp_path / "word-count", parser="swebench")
    task = import_task("terminal-bench", src, tmp_path / "out")
    assert task.test_command == 'TEST_DIR="$PWD/tests" bash run-tests.sh'
    assert (tmp_path / "out" / "initial" / "tests" / "test_outputs.py").is_file()
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "run-tests.sh", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "awk": "pass", "counts-chars": "fail"}
    assert code == 0


def test_harbor_task_runs_end_to_end_with_its_test_script(tmp_path):
    src = harbor(tmp_path / "greet")
    proc = prism("import", "harbor", str(src), str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    task = load_task(tmp_path / "out")
    # Judged as Harbor judges: by the reward file when test.sh writes one (this one does not: exit status).
    assert 'bash "$v/../test.sh"' in task.test_command and "tests/test.sh" in task.test_command
    assert task.timeout_s == 20
    assert (tmp_path / "out" / "initial" / "greet.sh").read_text() == GREET_BUGGY
    assert (tmp_path / "out" / "initial" / "tests" / "expect.sh").is_file()
    assert not (tmp_path / "out" / "initial" / "Dockerfile").exists()
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "tests" / "test.sh", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "printf": "pass", "no-bang": "fail"}
    assert code == 0


def test_harbor_with_image_instead_of_dockerfile(tmp_path):
    task = import_task("harbor", harbor(tmp_path / "greet"), tmp_path / "out", image="prism-python:local")
    assert task.image == "prism-python:local" and task.dockerfile is None


# -- bad variants: precise errors, nothing written ---------------------------------


def _expect(tmp_path, src, fmt="terminal-bench", **options) -> TaskImportError:
    with pytest.raises(TaskImportError) as err:
        import_task(fmt, src, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()
    assert isinstance(err.value, ManifestError)
    return err.value


def test_missing_task_yaml(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "task.yaml").unlink()
    err = _expect(tmp_path, src)
    assert err.key == "task.yaml" and "missing task.yaml" in err.problem


def test_missing_instruction(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "task.yaml").write_text("parser_name: pytest\n")
    err = _expect(tmp_path, src)
    assert err.file.endswith("task.yaml") and err.key == "instruction"


def test_missing_harbor_test_script(tmp_path):
    src = harbor(tmp_path / "g")
    (src / "tests" / "test.sh").unlink()
    err = _expect(tmp_path, src, "harbor")
    assert "missing test script" in err.problem and "tests/test.sh" in err.problem


def test_missing_patch_set(tmp_path):
    src = terminal_bench(tmp_path / "t")
    import shutil

    shutil.rmtree(src / "patch-set")
    err = _expect(tmp_path, src)
    assert err.key == "patch-set" and "--patch-set" in err.problem


def test_missing_patch_file(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "awk.diff").unlink()
    err = _expect(tmp_path, src)
    assert err.file.endswith("patch-set.toml")
    assert err.key == "candidate[1] (awk).patch" and "'awk.diff' does not exist" in err.problem


def test_wrong_digest(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "counts-chars.diff").write_text(diff("wc_words.sh", WC_BUGGY, WC_AWK))
    err = _expect(tmp_path, src)
    assert err.key == "candidate[2] (counts-chars).sha256" and "digest mismatch" in err.problem


def test_patch_that_does_not_apply(tmp_path):
    src = harbor(tmp_path / "g")
    pset = tmp_path / "g.patch-set"
    data = json.loads((pset / "patch-set.json").read_text())
    bad = diff("greet.sh", '#!/bin/sh\necho "Bonjour $1"\n', GREET_FIXED)
    (pset / "printf.diff").write_text(bad)
    import hashlib

    data["candidates"][1]["sha256"] = hashlib.sha256(bad.encode()).hexdigest()
    (pset / "patch-set.json").write_text(json.dumps(data))
    err = _expect(tmp_path, src, "harbor")
    assert err.key == "candidate[1] (printf).patch"
    assert "does not apply to the initial state" in err.problem and "greet.sh" in err.problem


def test_two_references(tmp_path):
    src = terminal_bench(tmp_path / "t")
    manifest = src / "patch-set" / "patch-set.toml"
    manifest.write_text(manifest.read_text().replace('id = "awk"', 'id = "awk"\nreference = true'))
    err = _expect(tmp_path, src)
    assert err.key == "reference" and "expected exactly one reference, found 2 (reference, awk)" in err.problem


def test_destination_not_empty(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(TaskImportError, match="not empty"):
        import_task("terminal-bench", src, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_cli_reports_import_errors_with_status_2(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "awk.diff").unlink()
    proc = prism("import", "terminal-bench", str(src), str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "candidate[1] (awk).patch" in proc.stderr and "does not exist" in proc.stderr


def test_all_imports_every_task_folder_of_a_dataset_and_reports_the_broken_one(tmp_path):
    """`--all` on a Terminal-Bench dataset folder: one native task per task folder, each with its own
    patch set; a task without one is an error naming it, and the others are still written."""
    data = tmp_path / "dataset"
    terminal_bench(data / "word-count")
    terminal_bench(data / "word-count-2")
    broken = terminal_bench(data / "no-panel")
    for f in sorted((broken / "patch-set").rglob("*"), reverse=True):
        f.rmdir() if f.is_dir() else f.unlink()
    (broken / "patch-set").rmdir()
    (data / "notes").mkdir()  # not a task folder: left alone
    proc = prism("import", "terminal-bench", str(data), str(tmp_path / "out"), "--all")
    assert proc.returncode == 2
    assert "imported 2 tasks" in proc.stdout and "1 could not be imported" in proc.stdout
    assert "no-panel" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["word-count", "word-count-2"]
    for name in ("word-count", "word-count-2"):
        task = load_task(tmp_path / "out" / name)
        assert [c.id for c in task.candidates] == ["reference", "awk", "counts-chars"]


def test_all_imports_a_harbor_dataset_and_refuses_one_patch_set_for_many(tmp_path):
    data = tmp_path / "dataset"
    harbor(data / "greet")
    proc = prism("import", "harbor", str(data), str(tmp_path / "out"), "--all")
    assert proc.returncode == 0, proc.stderr
    assert load_task(tmp_path / "out" / "greet").reference.id == "reference"
    proc = prism("import", "harbor", str(data), str(tmp_path / "out2"), "--all", "--patch-set", str(data))
    assert proc.returncode == 2 and "each task's patch set" in proc.stderr

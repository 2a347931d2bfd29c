"""`prism gate` twice on a real git repository: the second run takes every suite result from the
disk cache (`<cache>/results/`) and says so in its JSON and its summary; `--no-cache` runs all."""

from __future__ import annotations

import json

from tests.gate.change_repo import gate
from tests.repo.gitrepo import status


def test_a_second_gate_runs_no_program_whose_results_it_has(fixed_repo, tmp_path, capsys):
    cache = tmp_path / "cache"  # outside the repository, as the cache must be
    code, out, err = gate(capsys, cache, fixed_repo, "--base", "HEAD~1", "--json")
    assert code == 1, out + err
    first = json.loads(out)
    programs = 1 + first["panel"]["valid"] + first["panel"]["invalid"]
    assert first["cache"] == {"programs_run": programs, "programs_cached": 0, "tests_run": 1, "tests_cached": 0}

    code, out, err = gate(capsys, cache, fixed_repo, "--base", "HEAD~1", "--json")
    assert code == 1, out + err
    second = json.loads(out)
    assert second["cache"] == {"programs_run": 0, "programs_cached": programs, "tests_run": 0, "tests_cached": 1}
    assert (second["summary"], second["checks"]) == (first["summary"], first["checks"])
    assert second["suites"][0]["report"]["findings"] == first["suites"][0]["report"]["findings"]

    code, out, err = gate(capsys, cache, fixed_repo, "--base", "HEAD~1")
    assert f"results: 0 program(s) run, {programs} from cache (0 test(s) run, 1 from cache)" in out

    code, out, err = gate(capsys, cache, fixed_repo, "--base", "HEAD~1", "--json", "--no-cache")
    assert json.loads(out)["cache"]["programs_run"] == programs
    assert status(fixed_repo) == ""

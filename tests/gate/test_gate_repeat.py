"""`prism gate --repeat N`: every program of the gate's panel runs under N hash seeds, as `prism run`
and `prism score` do, and each suite's report says which seeds ran."""

from __future__ import annotations

import json

import pytest

from tests.gate.change_repo import gate


def test_repeat_runs_every_program_under_n_seeds_and_the_report_names_them(fixed_repo, capsys, cache_dir):
    code, out, err = gate(capsys, cache_dir, fixed_repo, "--base", "HEAD~1", "--repeat", "3", "--json")
    assert code in (0, 1), err
    suites = json.loads(out)["suites"]
    assert [s["report"]["seeds"] for s in suites] == [[0, 1, 2]]
    code, out, err = gate(capsys, cache_dir, fixed_repo, "--base", "HEAD~1", "--json")
    assert [s["report"]["seeds"] for s in json.loads(out)["suites"]] == [[0]]


@pytest.mark.parametrize(("value", "says"), [("0", "at least 1"), ("21", "at most 20 runs")])
def test_repeat_out_of_range_is_a_usage_error(fixed_repo, capsys, cache_dir, value, says):
    with pytest.raises(SystemExit) as exited:
        gate(capsys, cache_dir, fixed_repo, "--repeat", value)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "--repeat" in err and says in err

"""The kill matrix of a finished check, on the recorded run (no sandbox needed)."""

from __future__ import annotations

import pytest

from prism_lsp.document.matrix import NotRevealed, kill_matrix
from tests.document.recorded import at_reveal


def test_tests_by_programs_with_where_each_failure_was_decided(unit_check):
    matrix = kill_matrix(unit_check)
    assert [t["name"] for t in matrix["tests"]] == [
        "test_whole_mean",
        "test_halfway",
        "test_ignored_kind",
        "test_ignored_all",
        "test_accents",
    ]
    ids = [p["id"] for p in matrix["programs"]]
    assert ids[0] == "initial" and len(ids) == 11
    halfway = dict(zip(ids, matrix["cells"][1]))
    assert halfway["initial"] == {"outcome": "fail", "line": 9}
    assert halfway["half-even"] == {"outcome": "fail", "line": 9}
    assert halfway["reference"] == {"outcome": "pass", "line": 8}  # a pass links to the test
    wrong = {p["id"] for p in matrix["programs"] if not p["correct"]}
    assert "half-even" in wrong and "reference" not in wrong and "initial" not in wrong


@pytest.mark.parametrize("reveal", ["labels", "counts"])
def test_below_full_there_is_no_matrix(unit_check, reveal):
    with pytest.raises(NotRevealed, match="reveal = full"):
        kill_matrix(at_reveal(unit_check, reveal))

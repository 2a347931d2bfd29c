"""Panel sensitivity: exact expected joint success, pinned against hand-computed cases; the plot."""

import json
from fractions import Fraction

import pytest

from prism_lsp.cli import prism_main
from prism_lsp.judge.sensitivity import Counts, as_data, curves, expected_jsf, grid
from tests.conftest import FIXTURES


def test_hand_computed_cases():
    c = Counts(n_valid=4, n_invalid=5, s_valid=3, s_invalid=4, f=True)
    # C(3,2)/C(4,2) * C(4,3)/C(5,3) = 3/6 * 4/10
    assert expected_jsf(c, 2, 3) == Fraction(1, 5)
    assert expected_jsf(c, 0, 0) == 1  # the reference alone: F
    assert expected_jsf(c, 4, 0) == 0  # every valid candidate, one of them rejected
    assert expected_jsf(c, 1, 0) == Fraction(3, 4)
    assert expected_jsf(c, 0, 5) == 0
    assert expected_jsf(c, 3, 4) == Fraction(1, 4) * Fraction(1, 5)
    assert expected_jsf(Counts(4, 5, 4, 5, True), 4, 5) == 1
    # F false: nothing succeeds, whatever the sub-panel
    assert all(v == 0 for _, _, v in grid(Counts(4, 5, 4, 5, False)))


def test_grid_and_curves_shape():
    c = Counts(n_valid=2, n_invalid=3, s_valid=1, s_invalid=2, f=True)
    assert [(a, b) for a, b, _ in grid(c)] == [(a, b) for a in range(3) for b in range(4)]
    cs = curves(c)
    assert [(a, b) for a, b, _ in cs["valid"]] == [(0, 0), (1, 0), (2, 0)]
    assert [(a, b) for a, b, _ in cs["invalid"]] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    # (⌊j/2⌋, ⌈j/2⌉) while both fit: j = 0..5
    assert [(a, b) for a, b, _ in cs["alternating"]] == [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 3)]
    assert [str(v) for _, _, v in cs["alternating"]] == ["1", "2/3", "1/3", "1/6", "0", "0"]
    data = as_data(c)
    assert data["grid"][1] == {"a": 0, "b": 1, "size": 1, "expected_jsf": 0.666667, "exact": "2/3"}


def test_out_of_range_sub_panel_is_refused():
    with pytest.raises(ValueError):
        expected_jsf(Counts(1, 1, 1, 1, True), 2, 0)


def test_command_on_a_fixture_suite_with_plot(tmp_path, capsys, cache_dir):
    task = FIXTURES / "mean-rounded"
    plot = tmp_path / "curves.png"
    code = prism_main(
        [
            "panel",
            "sensitivity",
            str(task),
            str(task / "suites" / "test_overfit.py"),
            "--plot",
            str(plot),
            "--json",
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    # expected.toml: of the 4 other valid candidates only half-away is accepted; of the 5 invalid
    # ones trunc-negative and consumes-input are accepted, so 3 are rejected.
    assert (data["n_valid"], data["s_valid"], data["n_invalid"], data["s_invalid"]) == (4, 1, 5, 3)
    assert data["detects_baseline_and_accepts_reference"] is True
    cell = next(r for r in data["grid"] if (r["a"], r["b"]) == (1, 1))
    assert cell["exact"] == "3/20"  # 1/4 · 3/5
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 1000


def test_command_prints_the_table(capsys, cache_dir):
    task = FIXTURES / "mean-rounded"
    code = prism_main(
        [
            "panel",
            "sensitivity",
            str(task),
            str(task / "suites" / "test_strong.py"),
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "n^V = 4 (accepted s^V = 4)" in out and "100.0%" in out and "alternately" in out

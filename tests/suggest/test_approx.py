"""Floats that valid candidates compute differently by rounding: the over-specified `==` is relaxed to
`pytest.approx`, verified on the panel (valid accepted, the invalid one still rejected)."""

import json

from prism_lsp.cli import prism_main
from prism_lsp.suggest.build import _relaxations
from tests.conftest import write_task

BUGGY = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
SUM = "def mean(xs):\n    return sum(xs) / len(xs)\n"
FSUM = "import math\n\n\ndef mean(xs):\n    return math.fsum(xs) / len(xs)\n"
HALF = "def mean(xs):\n    return sum(xs) / len(xs) / 2\n"
SUITE = """import pytest

from stats import mean


def test_mean_of_tenths():
    assert mean([0.1, 0.2, 0.3]) == 0.20000000000000004
"""


def test_approx_is_the_relaxation_for_rounding_differences_only():
    found = dict(_relaxations(["0.20000000000000004", "0.19999999999999998"], "mean([0.1, 0.2, 0.3])"))
    statement = "assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.20000000000000004)"
    assert statement in found
    assert found[statement](0.2) and not found[statement](0.1)
    assert not any("approx" in s for s, _ in _relaxations(["1.0", "2.0"], "f()"))  # not rounding: membership
    assert not any("approx" in s for s, _ in _relaxations(["0.2", "0.20000000000000004"], "f()", False))


def test_overspecified_float_gets_a_verified_approx_relaxation(tmp_path, cache_dir, capsys):
    task = write_task(
        tmp_path / "mean-float",
        initial={"stats.py": BUGGY},
        task_id="mean-float",
        extra_task='entry = ["stats:mean"]',
        candidates=[
            {"id": "sum", "label": "valid", "reference": True, "files": {"stats.py": SUM}},
            {"id": "fsum", "label": "valid", "files": {"stats.py": FSUM}},
            {"id": "half", "label": "invalid", "files": {"stats.py": HALF}},
        ],
        suites={"tests/test_mean.py": SUITE},
    )
    suite = task / "tests" / "test_mean.py"
    assert prism_main(["suggest", str(task), str(suite), "--json", "--cache-dir", str(cache_dir)]) == 0
    found = [s for s in json.loads(capsys.readouterr().out) if s["kind"] == "rejects-valid"]
    assert [s["new_text"].strip() for s in found] == [
        "assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.20000000000000004)"
    ]
    v = found[0]["verified"]
    # valid counted besides the reference, as the lenses and the status count (issue 23 item 7)
    assert (v["valid_accepted"], v["valid_total"], v["invalid_rejected"], v["invalid_total"]) == (1, 1, 1, 1)
    assert v["detects_baseline"] is True
    assert prism_main(["suggest", str(task), str(suite), "--write", "--cache-dir", str(cache_dir)]) == 0
    capsys.readouterr()
    assert prism_main(["run", str(task), str(suite), "--json", "--cache-dir", str(cache_dir)]) == 0

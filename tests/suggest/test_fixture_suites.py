"""`prism suggest --write` on a copy of every weak, blind and overfit fixture suite, then
`prism run`: joint success wherever the baseline is detected, and no suggestion ever makes
a valid candidate rejected (each one's verified counts, and the written suite's run)."""

import json

import pytest

from prism_lsp.cli import prism_main
from tests.conftest import FIXTURES

# Fixtures with a full panel and expected verdicts (top-tags ships only its reference: its panel is built).
FIXTURE_NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.toml").is_file())
SUITES = ["test_weak.py", "test_blind.py", "test_overfit.py"]


def _json(capsys, argv):
    code = prism_main(argv)
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("fixture", FIXTURE_NAMES)
def test_suggest_write_then_run_reaches_joint_success(fixture, suite, fixture_copy, cache_dir, capsys):
    task = fixture_copy(fixture)
    path = task / "suites" / suite
    cache = ["--cache-dir", str(cache_dir)]
    _, before = _json(capsys, ["run", str(task), str(path), "--json", *cache])
    valid_before = {c["id"] for c in before["candidates"] if c["label"] == "valid" and c["verdict"] == "accepted"}
    others_before = {c["id"] for c in before["candidates"] if c["id"] in valid_before and not c["reference"]}
    code, suggestions = _json(capsys, ["suggest", str(task), str(path), "--json", "--write", *cache])
    assert code == 0 and suggestions
    for s in suggestions:
        assert s["verified"]["valid_accepted"] >= len(others_before), s["title"]  # the reference aside
    code, after = _json(capsys, ["run", str(task), str(path), "--json", *cache])
    valid_after = {c["id"] for c in after["candidates"] if c["label"] == "valid" and c["verdict"] == "accepted"}
    assert valid_before <= valid_after
    if after["metrics"]["detects_baseline"]:
        assert after["metrics"]["jsf"] and code == 0

"""The gate's decision over judged suites: thresholds, a stored baseline, and never passing on nothing."""

from __future__ import annotations

import json

import pytest

from prism_lsp.gate.checks import BaselineError, Thresholds, judge, load_baseline


def record(suite="tests/test_a.py", *, detects=True, rar=True, jsf=False, va=None, ir=0.4):
    metrics = {
        "detects_baseline": detects,
        "rar": rar,
        "jsf": jsf,
        "valid_acceptance": va,
        "invalid_rejection": ir,
        "h": None,
    }
    return {
        "task": "t",
        "suite": suite,
        "suite_file": suite,
        "status": "ok",
        "error": None,
        "report": {"metrics": metrics, "findings": []},
    }


def test_thresholds_are_percentages_of_the_overall_rates():
    assert not judge([record(ir=0.4)], Thresholds()).passed
    assert judge([record(ir=0.4)], Thresholds(invalid_rejection=40)).passed
    # Two suites count with equal weight: (40 + 100) / 2 = 70 %.
    two = [record(ir=0.4), record("tests/test_b.py", ir=1.0)]
    assert (
        judge(two, Thresholds(invalid_rejection=70)).passed and not judge(two, Thresholds(invalid_rejection=71)).passed
    )
    assert not judge([record(ir=1.0, va=0.5)], Thresholds()).passed  # a valid candidate rejected
    assert not judge([record(ir=1.0)], Thresholds(require_jsf=True)).passed


def test_a_test_that_misses_the_bug_or_rejects_the_fix_fails_whatever_the_rates():
    verdict = judge([record(ir=1.0, detects=False, rar=False)], Thresholds(invalid_rejection=0))
    assert not verdict.passed and any("does not detect the bug" in line for line in verdict.lines())
    assert not judge([record(ir=1.0, rar=False)], Thresholds(invalid_rejection=0)).passed


def test_nothing_judged_never_passes():
    assert not judge([], Thresholds(invalid_rejection=0)).passed
    error = {"task": "t", "suite": "s", "suite_file": "s", "status": "error", "error": "boom", "report": None}
    assert not judge([error], Thresholds(invalid_rejection=0)).passed
    no_invalid = judge([record(ir=None)], Thresholds(invalid_rejection=0))
    assert not no_invalid.passed and "the panel has none" in " ".join(no_invalid.lines())


def test_baseline_fails_only_on_a_regression(tmp_path):
    stored = tmp_path / "base.json"
    stored.write_text(json.dumps({"schema_version": 1, "summary": judge([record(ir=0.4)], Thresholds()).summary}))
    baseline = load_baseline(stored)
    assert judge([record(ir=0.4)], Thresholds(), baseline).passed  # below the threshold, but no worse
    assert judge([record(ir=0.6)], Thresholds(), baseline).passed
    worse = judge([record(ir=0.2)], Thresholds(), baseline)
    assert not worse.passed and "invalid rejection went down: 20%, was 40%" in " ".join(worse.lines())


@pytest.mark.parametrize(
    "text, expected",
    [
        ("not json", "not a JSON report"),
        ('{"summary": {}}', "key `schema_version`"),
        ('{"schema_version": 1, "summary": {"rar": [1]}}', "key `summary.rar`"),
    ],
)
def test_a_bad_baseline_file_is_named_with_its_key(tmp_path, text, expected):
    path = tmp_path / "base.json"
    path.write_text(text)
    with pytest.raises(BaselineError, match=expected) as err:
        load_baseline(path)
    assert str(path) in str(err.value)

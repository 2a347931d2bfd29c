"""The metrics of DESIGN.md pinned on hand-computed panels."""

import pytest

from prism_lsp.judge.metrics import Verdict, aggregate, harmonic, task_metrics


def panel(ref="pass", valid=("pass",) * 4, invalid=("fail",) * 5):
    vs = [Verdict("ref", True, True, ref)]
    vs += [Verdict(f"v{i}", True, False, o) for i, o in enumerate(valid)]
    vs += [Verdict(f"i{i}", False, False, o) for i, o in enumerate(invalid)]
    return vs


def test_perfect_suite_has_joint_success():
    m = task_metrics("fail", panel())
    assert m == {
        "detects_baseline": True,
        "rar": True,
        "jsf": True,
        "valid_acceptance": 1.0,
        "invalid_rejection": 1.0,
        "h": 1.0,
    }


def test_overspecified_suite_keeps_rar_but_loses_jsf():
    m = task_metrics("fail", panel(valid=("pass", "fail", "pass", "fail")))
    assert m["rar"] is True and m["jsf"] is False
    assert m["valid_acceptance"] == 0.5
    assert m["h"] == pytest.approx(2 * 0.5 * 1.0 / 1.5, abs=1e-4)


def test_missing_the_baseline_fails_rar_and_jsf_even_if_the_panel_is_judged_right():
    m = task_metrics("pass", panel())
    assert (m["detects_baseline"], m["rar"], m["jsf"]) == (False, False, False)
    # Rates describe the panel alone.
    assert m["valid_acceptance"] == 1.0 and m["invalid_rejection"] == 1.0


def test_errors_are_never_credited():
    # An erroring invalid candidate is not a rejection; an erroring valid one is not an acceptance.
    m = task_metrics("fail", panel(valid=("pass", "pass", "pass", "error"), invalid=("fail",) * 4 + ("error",)))
    assert m["jsf"] is False
    assert m["valid_acceptance"] == 0.75
    assert m["invalid_rejection"] == 0.8


@pytest.mark.parametrize(
    "reason",
    [
        None,
        "sandbox",
        "runner",
        "protocol",
        "cancelled",
        "materialize",
        "no-tests",
        "interrupted",
        "skipped",
        "pytest",
        "error",
    ],
)
def test_an_error_prism_made_on_the_baseline_is_not_detection(reason):
    m = task_metrics("error", panel(), reason)
    assert m["detects_baseline"] is False and m["rar"] is False and m["jsf"] is False


@pytest.mark.parametrize("reason", ["collection", "fixture"])
def test_an_error_of_the_suites_own_making_on_the_baseline_detects_it(reason):
    # `from solution import g` where the fix adds g: fail-to-pass, as SWT-Bench and r(b) count it.
    m = task_metrics("error", panel(), reason)
    assert (m["detects_baseline"], m["rar"], m["jsf"]) == (True, True, True)
    # Whatever made the initial program's error, an error on a candidate is never correct.
    m = task_metrics("error", panel(invalid=("fail",) * 4 + ("error",)), reason)
    assert m["detects_baseline"] is True and m["jsf"] is False and m["invalid_rejection"] == 0.8


@pytest.mark.parametrize("reason", ["timeout", "crash", "memory", "killed", "output-limit", "exited"])
def test_a_hang_on_the_baseline_detects_it_only_when_the_reference_passes(reason):
    assert task_metrics("error", panel(), reason)["jsf"] is True
    assert task_metrics("error", panel(ref="fail"), reason)["detects_baseline"] is False
    assert task_metrics("error", panel(ref="error"), reason)["detects_baseline"] is False


def test_reference_rejected_means_no_rar():
    m = task_metrics("fail", panel(ref="fail"))
    assert m["rar"] is False and m["jsf"] is False


@pytest.mark.parametrize(
    "valid,invalid",
    [
        (("pass",) * 4, ("fail",) * 5),
        (("fail",) * 4, ("pass",) * 5),
        (("pass", "fail") * 2, ("fail", "pass", "error", "fail", "fail")),
    ],
)
@pytest.mark.parametrize(
    "baseline,reason",
    [("fail", None), ("pass", None), ("error", "sandbox"), ("error", "collection"), ("error", "timeout")],
)
def test_jsf_never_exceeds_rar(baseline, reason, valid, invalid):
    m = task_metrics(baseline, panel(valid=valid, invalid=invalid), reason)
    assert m["jsf"] <= m["rar"]


def test_rates_are_null_without_candidates_of_that_kind():
    m = task_metrics("fail", [Verdict("ref", True, True, "pass"), Verdict("bad", False, False, "fail")])
    assert m["valid_acceptance"] is None and m["h"] is None and m["invalid_rejection"] == 1.0
    m = task_metrics("fail", [Verdict("ref", True, True, "pass"), Verdict("v", True, False, "pass")])
    assert m["invalid_rejection"] is None and m["jsf"] is True


def test_harmonic_edge_cases():
    assert harmonic(0.0, 0.0) == 0.0
    assert harmonic(None, 1.0) is None
    assert harmonic(1.0, 0.0) == 0.0


def test_aggregate_rounds_rates_before_h_and_skips_undefined():
    rows = [
        {"detects_baseline": True, "rar": True, "jsf": False, "valid_acceptance": 1 / 3, "invalid_rejection": 1.0},
        {"detects_baseline": True, "rar": False, "jsf": False, "valid_acceptance": None, "invalid_rejection": 0.5},
        {"detects_baseline": False, "rar": False, "jsf": False, "valid_acceptance": 1.0, "invalid_rejection": 0.2},
    ]
    s = aggregate(rows)
    assert s["tasks"] == 3
    assert s["rar"] == 33.33 and s["detects_baseline"] == 66.67 and s["jsf"] == 0.0
    assert s["valid_acceptance"] == 66.67  # mean of 1/3 and 1 (the undefined one left out)
    assert s["invalid_rejection"] == 56.67  # mean of 1, .5, .2
    assert s["h"] == round(2 * 66.67 * 56.67 / (66.67 + 56.67), 2)

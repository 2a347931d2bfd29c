"""The programs of a finished check as Test Explorer items, on the recorded run (no sandbox needed)."""

from __future__ import annotations

from prism_lsp.document.programs import program_items
from tests.document.recorded import at_reveal, leaks


def test_full_names_each_program_and_puts_a_wrong_verdict_on_its_assertion(unit_check):
    items = {i["id"]: i for i in program_items(unit_check)}
    assert items["initial"]["passed"] is True and items["reference"]["passed"] is True
    half_even = items["half-even"]
    assert half_even["label"] == "half-even (valid)" and half_even["passed"] is False
    assert half_even["line"] == 9 and half_even["message"] == "rejected, though valid: assert 2 == 3"
    assert (half_even["expected"], half_even["actual"]) == ("3", "2")
    assert items["half-away"]["passed"] is True and items["half-away"]["message"] == ""
    trunc = items["trunc-negative"]  # invalid, accepted: every test passes on it
    assert trunc["passed"] is False and trunc["message"].startswith("accepted, though invalid")
    assert len(items) == 11


def test_labels_names_programs_anonymously_without_values(unit_check):
    items = program_items(at_reveal(unit_check, "labels"))
    assert len(items) == 11 and not any(leaks(str(i)) for i in items)
    rejected = [i for i in items if i["label"].endswith("(valid)") and not i["passed"]]
    assert rejected and all(i["expected"] is None and "assert" not in i["message"] for i in rejected)


def test_counts_shows_no_candidate_one_by_one(unit_check):
    items = program_items(at_reveal(unit_check, "counts"))
    assert [i["id"] for i in items] == ["initial", "valid", "invalid"]
    assert items[1]["message"] == "1 of 4 valid candidates accepted (the reference left out)"
    assert not any(leaks(str(i)) for i in items)


def test_sealed_shows_the_initial_program_alone(unit_check):
    items = program_items(at_reveal(unit_check, "sealed"))
    assert [i["id"] for i in items] == ["initial"]


def test_full_lists_each_programs_tests_with_their_outcomes_kinds_and_durations(unit_check):
    items = {i["id"]: i for i in program_items(unit_check)}
    assert [items[k]["kind"] for k in ("initial", "reference", "half-even", "trunc-negative")] == [
        "initial",
        "reference",
        "valid",
        "invalid",
    ]
    names = [t["name"] for t in items["half-even"]["tests"]]
    assert names and len(set(names)) == len(names)
    rejecting = next(t for t in items["half-even"]["tests"] if t["outcome"] == "fail")
    assert (rejecting["line"], rejecting["expected"], rejecting["actual"]) == (9, "3", "2")
    assert all(t["outcome"] == "pass" for t in items["trunc-negative"]["tests"])  # accepted, though invalid
    assert any(t["outcome"] == "fail" for t in items["initial"]["tests"])
    assert all(i["duration_ms"] is None or i["duration_ms"] > 0 for i in items.values())


def test_below_full_no_test_is_listed_under_a_program(unit_check):
    for reveal in ("labels", "counts", "sealed"):
        items = program_items(at_reveal(unit_check, reveal))
        assert all(i["tests"] == [] for i in items), reveal

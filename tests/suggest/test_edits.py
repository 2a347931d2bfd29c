"""Suite edits as text: appended checks match the test's indentation, new tests land after the
test that reaches the change, relaxations replace exactly the assert, expected values round-trip."""

import ast

from prism_lsp.suggest.edits import (
    Edit,
    append_to_test_edit,
    apply_edits,
    failing_assert,
    new_test_edit,
    replace_assert_edit,
    witness_body,
)
from prism_lsp.witness.search import Witness
from prism_lsp.witness.values import literal, round_trips

SUITE = """from solution import f


@pytest.mark.parametrize("x", [1])
def test_param(x):
    assert f(x) == 2


class TestNothing:
    pass


def test_plain():
  result = f(1)
  assert result == 2
"""


def test_checks_are_appended_at_the_tests_indentation_and_new_tests_follow_it():
    tree = ast.parse(SUITE)
    w = Witness("bad", "solution:f", (3,), "f(3)", "value", "exact", "6")
    assert append_to_test_edit(SUITE, tree, "test_param", witness_body(w, True)) is None  # parametrized
    inside = append_to_test_edit(SUITE, tree, "test_plain", witness_body(w, True))
    new = new_test_edit(SUITE, tree, "test_f_case", witness_body(w, True), "test_param")
    text = apply_edits(SUITE, [inside, new])
    assert "  assert result == 2\n  assert f(3) == 6\n" in text
    assert "    assert f(x) == 2\n\n\ndef test_f_case():\n    assert f(3) == 6\n\n\nclass TestNothing" in text
    ast.parse(text)


def test_raises_and_mutation_checks():
    raises = Witness("bad", "solution:f", ([],), "f([])", "raises", "exact", "ValueError")
    assert witness_body(raises, False) == ["import pytest", "", "with pytest.raises(ValueError):", "    f([])"]
    mutates = Witness("bad", "solution:f", ([3, 1],), "f([3, 1])", "mutates", "exact", literal(([3, 1],)))
    assert witness_body(mutates, True) == ["value = [3, 1]", "f(value)", "assert value == [3, 1]"]
    two = Witness("bad", "solution:g", ([3, 1], 2), "g([3, 1], 2)", "mutates", "exact", literal(([3, 1], 2)))
    assert witness_body(two, True)[1] == "g(*arguments)"


def test_relaxation_replaces_only_the_assert_and_can_carry_new_tests():
    text = "from solution import f\n\n\ndef test_x():\n    assert f(1) == 2\n    assert f(0) == 0\n"
    tree = ast.parse(text)
    target = failing_assert(text, tree, 5, {"f(1)"})
    assert target is not None and target.other_source == "2"
    relaxed = apply_edits(text, [replace_assert_edit(text, tree, target, "assert f(1) in {2, 3}")])
    assert relaxed == text.replace("assert f(1) == 2", "assert f(1) in {2, 3}")
    carried = apply_edits(
        text,
        [replace_assert_edit(text, tree, target, "assert f(1) in {2, 3}", [("test_f_case", ["assert f(5) == 10"])])],
    )
    assert carried.endswith("    assert f(0) == 0\n\n\ndef test_f_case():\n    assert f(5) == 10\n")


def test_literals_round_trip_and_apply_keeps_insertion_order():
    for value in ([1, (2, "é")], {3, 1, 2}, -0.5, "a'b\"c"):
        assert round_trips(value) and eval(literal(value)) == value
    assert not round_trips(float("nan")) and not round_trips(frozenset({1}))
    assert literal({3, 1, 2}) == "{1, 2, 3}"
    edits = [Edit(0, 0, 0, 0, "b\n", after=1), Edit(0, 0, 0, 0, "a\n")]
    assert apply_edits("z\n", edits) == "a\nb\nz\n"

"""Static weak-assertion rules: each fires on its weak pattern and not on a real check."""

from __future__ import annotations

from textwrap import dedent

import pytest

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.analysis.weak_assertions import StaticFinding, static_findings

HEADER = "import pytest\nfrom minutes import whole_minutes as f\n\n\n"


def findings_for(body: str) -> list[StaticFinding]:
    return static_findings(HEADER + dedent(body))


def rules(body: str) -> list[str]:
    return [f.rule for f in findings_for(body)]


@pytest.mark.parametrize(
    "rule, body",
    [
        ("type-only", "def test_t():\n    assert isinstance(f(3), int)\n"),
        ("type-only", "def test_t():\n    assert type(f(3)) is int\n    assert type(f(4)) == int\n"),
        ("not-none-only", "def test_n():\n    r = f(3)\n    assert r is not None\n"),
        ("not-none-only", "def test_n():\n    r = f(3)\n    assert r\n    assert r != None\n"),
        ("len-only", "def test_l():\n    assert len(f([1, 2])) == 2\n"),
        ("len-only", "def test_l():\n    assert len(f([1, 2])) > 0\n"),
        ("empty-input-only", "def test_e():\n    assert f([]) == []\n"),
        ("empty-input-only", "def test_e():\n    assert f('') == 0\n    assert f(set()) == 0\n"),
        ("empty-input-only", "def test_e():\n    result = f({})\n    assert result == {}\n"),
    ],
)
def test_weak_pattern_fires_its_rule(rule: str, body: str):
    assert rule in rules(body)


@pytest.mark.parametrize(
    "body",
    [
        "def test_value():\n    assert f(3) == 2\n",
        "def test_value():\n    assert f([1, 2]) == [1]\n",
        "def test_predicate():\n    assert is_whole(60)\n",
        "def test_len_and_value():\n    assert len(f([1])) == 1\n    assert f([1]) == [1]\n",
        "def test_type_and_value():\n    assert isinstance(f(3), int)\n    assert f(3) == 2\n",
        "def test_not_none_and_value():\n    r = f(3)\n    assert r is not None\n    assert r == 2\n",
        "def test_empty_and_full():\n    assert f([]) == []\n    assert f([1, 2]) == [2]\n",
        "@pytest.mark.parametrize('xs', [[], [1]])\ndef test_param(xs):\n    assert f(xs) == xs\n",
    ],
)
def test_a_real_check_is_not_weak(body: str):
    assert findings_for(body) == []


def test_type_only_points_at_the_first_assert_with_an_explaining_message():
    body = "def test_t():\n    x = 1\n    assert isinstance(f(3), int)\n    assert isinstance(f(4), int)\n"
    (finding,) = findings_for(body)

    assert (finding.kind, finding.rule, finding.test_name) == ("weak-assertion", "type-only", "test_t")
    assert finding.span.start_line == 7  # header is 4 lines; the first assert
    assert finding.span.start_col == 4
    assert "type" in finding.message and "Assert the value" in finding.message


def test_no_assert_points_at_the_test_name():
    body = "def test_runs():\n    f(3)\n"
    (finding,) = findings_for(body)

    assert finding.rule == "no-assert"
    assert (finding.span.start_line, finding.span.start_col, finding.span.end_col) == (5, 4, 13)


@pytest.mark.parametrize(
    "body",
    [
        "def test_r():\n    with pytest.raises(ValueError):\n        f(-1)\n",
        "def test_r():\n    if f(1) != 1:\n        pytest.fail('wrong')\n",
        "def test_r(mocker):\n    m = mocker.Mock()\n    f(m)\n    m.assert_called_once_with(1)\n",
        "def test_r():\n    if f(1) != 1:\n        raise AssertionError('wrong')\n",
        "def check(x):\n    assert x == 1\n\ndef test_r():\n    check(f(60))\n",
        "def test_r():\n    pytest.skip('later')\n",
    ],
)
def test_other_checks_count_as_asserting(body: str):
    assert "no-assert" not in rules(body)


def test_raises_next_to_a_weak_assert_silences_the_weak_rule():
    body = "def test_r():\n    assert isinstance(f(3), int)\n    with pytest.raises(ValueError):\n        f(-1)\n"
    assert findings_for(body) == []


def test_rules_apply_to_class_and_async_tests_with_their_node_names():
    body = dedent(
        """\
        class TestMinutes:
            def test_m(self):
                assert f(3) is not None

        async def test_a():
            assert isinstance(await f(3), int)
        """
    )
    found = {(f.test_name, f.rule) for f in findings_for(body)}

    assert found == {("TestMinutes::test_m", "not-none-only"), ("test_a", "type-only")}


def test_a_test_can_be_weak_in_two_ways():
    assert set(rules("def test_both():\n    assert isinstance(f([]), list)\n")) == {"type-only", "empty-input-only"}


def test_helpers_and_fixtures_are_not_tests():
    body = "@pytest.fixture\ndef data():\n    return []\n\ndef helper():\n    f(1)\n"
    assert findings_for(body) == []


def test_test_being_edited_gets_no_weak_finding_but_others_do():
    body = "def test_typing():\n    assert f(1 == \n\ndef test_done():\n    assert isinstance(f(1), int)\n"
    found = findings_for(body)

    assert [(f.test_name, f.rule) for f in found] == [("test_done", "type-only")]
    assert found[0].span.start_line == 9


def test_accepts_a_suite_map_as_well_as_text():
    text = HEADER + "def test_t():\n    assert isinstance(f(3), int)\n"
    assert static_findings(parse_suite(text)) == static_findings(text)

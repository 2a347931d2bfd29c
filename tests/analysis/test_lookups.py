"""The suite map's indexed lookups (by name, by line, by name and text) answer as a scan of its tests
does: pytest's last definition of a name, the first test (in source order) holding a line, inherited
tests sharing their method's span."""

from __future__ import annotations

from prism_lsp.analysis.suite_map import parse_suite, same_test, test_at_line, test_for_name

SUITE = """import unittest


class Mixin:
    def test_shared(self):
        assert self.value > 0


class TestA(Mixin, unittest.TestCase):
    value = 1

    def test_own(self):
        assert True


class TestB(Mixin, unittest.TestCase):
    value = 2


def test_twice():
    assert 1


@staticmethod
def test_twice():
    assert 2
"""


def test_lookups_agree_with_a_scan_of_the_tests():
    suite_map = parse_suite(SUITE)
    tests = suite_map.tests
    assert {t.name for t in tests} >= {"TestA::test_shared", "TestB::test_shared", "TestA::test_own", "test_twice"}
    for line in range(0, SUITE.count("\n") + 3):
        scanned = next((t for t in tests if t.span.contains_line(line)), None)
        assert test_at_line(suite_map, line) is scanned, line
    for test in tests:
        last = [t for t in tests if t.name == test.name][-1]
        assert test_for_name(suite_map, test.name) is last
        assert test_for_name(suite_map, f"tests/test_x.py::{test.name}[1-2]") is last
        first = next(t for t in tests if t.name == test.name and t.body_hash == test.body_hash)
        assert same_test(suite_map, test) is first
    assert test_for_name(suite_map, "test_missing") is None

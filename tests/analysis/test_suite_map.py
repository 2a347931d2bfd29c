"""Locating tests and assertions in a suite buffer (names, lines, columns)."""

from __future__ import annotations

from textwrap import dedent

from prism_lsp.analysis.span import Span
from prism_lsp.analysis.suite_map import assertion_at_line, parse_suite, test_at_line, test_for_name

SUITE = dedent(
    """\
    import pytest
    from minutes import whole_minutes


    @pytest.fixture
    def seconds():
        assert True
        return 120


    @pytest.mark.parametrize("secs, expected", [(60, 1), (119, 1)])
    def test_param(secs, expected):
        assert whole_minutes(secs) == expected


    async def test_async():
        assert await whole_minutes_async(60) == 1


    class TestRounding:
        def helper(self):
            return 1

        @pytest.mark.slow
        def test_down(self):
            with pytest.raises(ValueError):
                whole_minutes(-1)
            for secs in (61, 119):
                if secs:
                    assert whole_minutes(secs) == 1

        def test_multi(self):
            assert whole_minutes(
                180
            ) == 3, "three minutes"

        class TestNested:
            def test_inner(self):
                assert whole_minutes(0) == 0


    class Helper:
        def test_not_collected(self):
            assert False
    """
)


def test_finds_every_pytest_test_with_its_node_name():
    suite = parse_suite(SUITE)

    assert [t.name for t in suite.tests] == [
        "test_param",
        "test_async",
        "TestRounding::test_down",
        "TestRounding::test_multi",
        "TestRounding::TestNested::test_inner",
    ]
    down = suite.tests[2]
    assert (down.func_name, down.class_name) == ("test_down", "TestRounding")
    assert suite.tests[4].class_name == "TestRounding::TestNested"


def test_decorated_test_span_starts_at_the_decorator_and_name_span_is_the_identifier():
    suite = parse_suite(SUITE)
    param = test_for_name(suite, "test_param")

    assert param is not None
    assert param.span.start_line == 11  # the @pytest.mark.parametrize line
    assert param.span.end_line == 13
    assert param.name_span == Span(12, 4, 12, 14)


def test_async_test_is_collected_with_its_assert():
    suite = parse_suite(SUITE)
    test = test_for_name(suite, "test_async")

    assert test is not None
    assert [a.span.start_line for a in test.assertions] == [17]
    assert test.assertions[0].text == "assert await whole_minutes_async(60) == 1"


def test_asserts_nested_in_with_for_if_belong_to_the_test_and_raises_is_not_an_assert():
    suite = parse_suite(SUITE)
    down = test_for_name(suite, "TestRounding::test_down")

    assert down is not None
    assert [(a.span.start_line, a.test_name) for a in down.assertions] == [(30, "TestRounding::test_down")]
    assert down.assertions[0].span.start_col == 16


def test_multi_line_assert_spans_all_its_lines_and_any_of_them_finds_it():
    suite = parse_suite(SUITE)
    multi = test_for_name(suite, "TestRounding::test_multi")

    assert multi is not None
    (assertion,) = multi.assertions
    assert (assertion.span.start_line, assertion.span.end_line) == (33, 35)
    for line in (33, 34, 35):
        assert assertion_at_line(suite, line) == assertion
    assert assertion_at_line(suite, 32) is None  # the `def` line


def test_helper_and_fixture_asserts_have_no_test_name():
    suite = parse_suite(SUITE)

    lines = [(a.span.start_line, a.test_name) for a in suite.helper_assertions]
    assert (7, None) in lines  # the fixture's assert
    assert (44, None) in lines  # class Helper is not a test class
    assert assertion_at_line(suite, 7) is not None
    assert assertion_at_line(suite, 7).test_name is None


def test_for_name_accepts_parametrized_ids_and_node_ids():
    suite = parse_suite(SUITE)

    assert test_for_name(suite, "test_param[60-1]").name == "test_param"
    assert test_for_name(suite, "TestRounding::test_down[a]").name == "TestRounding::test_down"
    assert test_for_name(suite, "tests/test_minutes.py::test_async").name == "test_async"
    assert test_for_name(suite, "test_missing") is None
    assert test_for_name(suite, "test_down") is None  # needs its class


def test_at_line_covers_decorators_and_body_but_not_the_gap_between_tests():
    suite = parse_suite(SUITE)

    assert test_at_line(suite, 11).name == "test_param"  # decorator line
    assert test_at_line(suite, 13).name == "test_param"
    assert test_at_line(suite, 14) is None
    assert test_at_line(suite, 30).name == "TestRounding::test_down"
    assert test_at_line(suite, 1) is None


def test_columns_count_characters_not_utf8_bytes():
    text = 'def test_unicode():\n    x = "héllo wörld"; assert f(x) == "ü"\n'
    suite = parse_suite(text)

    (assertion,) = suite.tests[0].assertions
    line = text.splitlines()[1]
    assert assertion.span.start_col == line.index("assert")
    assert assertion.span.end_col == len(line)
    assert line[assertion.span.start_col : assertion.span.end_col] == assertion.text


def test_redefined_test_name_resolves_to_the_last_definition_like_pytest():
    text = "def test_x():\n    assert 1 == 1\n\ndef test_x():\n    assert 2 == 2\n"
    suite = parse_suite(text)

    assert test_for_name(suite, "test_x").span.start_line == 4


def test_pytest_default_prefixes_collect_testfoo_and_skip_classes_with_init():
    text = dedent(
        """\
        def testcompact():
            assert f(1) == 1

        def helper_test():
            assert f(2) == 2

        class TestWithInit:
            def __init__(self):
                pass

            def test_never(self):
                assert f(3) == 3
        """
    )
    suite = parse_suite(text)

    assert [t.name for t in suite.tests] == ["testcompact"]
    assert {a.span.start_line for a in suite.helper_assertions} == {5, 12}


def test_clean_buffer_has_no_syntax_errors():
    assert parse_suite(SUITE).syntax_errors == []


def test_unittest_testcase_subclasses_are_collected_whatever_their_name_like_pytest():
    text = dedent(
        """\
        import unittest
        from unittest import TestCase

        class ChunkedTests(TestCase):
            def setUp(self):
                self.n = 2

            def test_even(self):
                assert f(4) == 2

            def testcompact(self):
                assert f(1) == 1

            class TestInner:
                def test_not_collected(self):
                    assert f(5) == 5

        class MoreChunkedTests(ChunkedTests):
            def test_odd(self):
                assert f(3) == 1

        class AsyncTests(unittest.IsolatedAsyncioTestCase):
            async def test_later(self):
                assert f(6) == 3

        class Helper(object):
            def test_not_a_test(self):
                assert f(7) == 7
        """
    )
    suite = parse_suite(text)

    assert [t.name for t in suite.tests] == [
        "ChunkedTests::test_even",
        "MoreChunkedTests::test_even",  # inherited, as pytest collects it
        "ChunkedTests::testcompact",
        "MoreChunkedTests::testcompact",
        "MoreChunkedTests::test_odd",
        "AsyncTests::test_later",
    ]
    assert test_for_name(suite, "tests/test_chunked.py::ChunkedTests::test_even").span.start_line == 8
    assert {a.span.start_line for a in suite.helper_assertions} == {16, 28}


def test_tests_inherited_from_a_class_of_the_module_are_collected_under_each_subclass():
    text = dedent(
        """\
        from unittest import TestCase

        class PeekMixin:
            def test_peek(self):
                assert self.make().peek() == 1

            def helper(self):
                return 2

        class PeekableTests(PeekMixin, TestCase):
            def make(self):
                return peekable([1])

        class SeekableTests(PeekMixin, TestCase):
            def make(self):
                return seekable([1])

            def test_peek(self):
                assert self.make().seek(0) is None

        class TestBase:
            def test_shared(self):
                assert f() == 0

        class TestChild(TestBase):
            pass
        """
    )
    suite = parse_suite(text)

    assert [(t.name, t.span.start_line) for t in suite.tests] == [
        ("PeekableTests::test_peek", 4),  # the mixin's method, where a finding on it lands
        ("SeekableTests::test_peek", 18),  # its own, not the mixin's
        ("TestBase::test_shared", 22),
        ("TestChild::test_shared", 22),
    ]
    edited = parse_suite(text.replace("peek() == 1", "peek() == 2"))
    assert edited.shared_hash == suite.shared_hash  # only the tests holding that method changed
    changed = {t.name for t, u in zip(suite.tests, edited.tests) if t.body_hash != u.body_hash}
    assert changed == {"PeekableTests::test_peek"}


def test_inherited_tests_are_bounded_for_a_buffer_made_to_multiply_them():
    from prism_lsp.analysis.discovery import MAX_INHERITED

    methods = "".join(f"    def test_{i}(self):\n        assert {i}\n" for i in range(200))
    text = f"class Base:\n{methods}\n" + "".join(f"class Test{k}(Base):\n    pass\n" for k in range(200))
    suite = parse_suite(text)  # 200 x 200 pairs: 40,000 tests if nothing stopped it

    assert len(suite.tests) == MAX_INHERITED
    assert suite.tests[0].name.startswith("Test0::")

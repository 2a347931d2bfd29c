"""A buffer mid-edit: tests that parse are still found, errors land on the right line."""

from __future__ import annotations

from textwrap import dedent

from prism_lsp.analysis.suite_map import parse_suite, test_for_name

BROKEN = dedent(
    """\
    import pytest


    def test_first():
        assert f(1) == 1


    def test_typing():
        assert f(2 == 2


    @pytest.mark.parametrize("x", [1, 2])
    def test_after(x):
        assert f(x) == x


    class TestLater:
        def test_method(self):
            assert f(3) == 3
    """
)


def test_unclosed_paren_does_not_swallow_the_tests_after_it():
    suite = parse_suite(BROKEN)

    assert [t.name for t in suite.tests] == ["test_first", "test_typing", "test_after", "TestLater::test_method"]
    after = test_for_name(suite, "test_after")
    assert after.span.start_line == 12  # its decorator stays with it
    assert [a.span.start_line for a in after.assertions] == [14]
    assert test_for_name(suite, "TestLater::test_method").assertions[0].span.start_line == 19


def test_unclosed_paren_is_reported_on_its_line_with_a_helpful_message():
    suite = parse_suite(BROKEN)

    assert len(suite.syntax_errors) >= 1
    first = suite.syntax_errors[0]
    assert first.span.start_line == 9
    assert first.message == "syntax error: missing ')'"
    # Points at the bracket that is never closed.
    assert first.span.start_col == BROKEN.splitlines()[8].index("(")


def test_the_broken_assert_is_still_listed_for_its_test():
    suite = parse_suite(BROKEN)

    typing = test_for_name(suite, "test_typing")
    assert [a.span.start_line for a in typing.assertions] == [9]


def test_error_tree_sitter_accepts_is_reported_from_cpython():
    # tree-sitter parses an empty body without complaint; CPython does not.
    text = "def test_empty():\n\ndef test_next():\n    assert f(1) == 1\n"
    suite = parse_suite(text)

    assert [t.name for t in suite.tests] == ["test_empty", "test_next"]
    assert len(suite.syntax_errors) == 1
    error = suite.syntax_errors[0]
    assert error.span.start_line == 3
    assert "expected an indented block" in error.message
    assert error.message.startswith("syntax error: ")


def test_stray_token_reports_syntax_error_near_the_code():
    text = "def test_x():\n    assert f(1) == 1\n\nx = = 2\n"
    suite = parse_suite(text)

    assert [e.span.start_line for e in suite.syntax_errors] == [4]
    assert suite.syntax_errors[0].message.startswith("syntax error")
    assert [t.name for t in suite.tests] == ["test_x"]


def test_syntax_error_column_counts_characters_after_unicode():
    text = 'def test_x():\n    assert f("ü€") == (1,\n'
    suite = parse_suite(text)

    error = suite.syntax_errors[0]
    assert error.span.start_line == 2
    assert error.span.start_col == text.splitlines()[1].index("(1")


def test_a_def_inside_a_multi_line_string_is_not_mistaken_for_a_test():
    text = dedent(
        '''\
        DOC = """
        def test_fake():
            pass
        """

        def test_real():
            assert f(1 == 1
        '''
    )
    suite = parse_suite(text)

    assert [t.name for t in suite.tests] == ["test_real"]

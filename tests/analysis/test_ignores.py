"""`# prism: ignore[...]` comments: parsing, honouring, and the quick-fix edit."""

from __future__ import annotations

from textwrap import dedent

from prism_lsp.analysis.ignores import ignore_comment_edit, ignored_kinds, is_ignored

TEXT = dedent(
    '''\
    def test_a():
        assert isinstance(f(1), int)  # prism: ignore[weak-assertion]
        assert f(2) == (
            2
        )  # prism: ignore[rejects-valid, accepts-invalid]
        assert f(3) == 3  # prism: ignore
        assert f("# prism: ignore") == 4
        s = """
        # prism: ignore
        """
    '''
)


def test_specific_and_bare_ignores_are_read_per_line():
    ignores = ignored_kinds(TEXT)

    assert ignores[2] == frozenset({"weak-assertion"})
    assert ignores[5] == frozenset({"rejects-valid", "accepts-invalid"})
    assert ignores[6] is None  # bare: every kind


def test_ignore_text_inside_strings_is_not_honoured():
    ignores = ignored_kinds(TEXT)

    assert 7 not in ignores
    assert 9 not in ignores  # inside a triple-quoted string
    assert not is_ignored(ignores, "rejects-valid", 7, 7)


def test_multi_line_finding_is_ignored_by_a_comment_on_its_last_line():
    ignores = ignored_kinds(TEXT)

    assert is_ignored(ignores, "rejects-valid", 3, 5)
    assert not is_ignored(ignores, "execution-error", 3, 5)  # a different kind
    assert not is_ignored(ignores, "rejects-valid", 3, 4)


def test_bare_ignore_silences_every_kind_and_specific_only_its_own():
    ignores = ignored_kinds(TEXT)

    assert is_ignored(ignores, "execution-error", 6, 6)
    assert is_ignored(ignores, "weak-assertion", 2, 2)
    assert not is_ignored(ignores, "rejects-valid", 2, 2)


def test_a_rule_id_can_be_ignored_on_its_own():
    ignores = ignored_kinds("def test_a():\n    assert x  # prism: ignore[not-none-only]\n")

    assert is_ignored(ignores, "weak-assertion", 2, 2, rule="not-none-only")
    assert not is_ignored(ignores, "weak-assertion", 2, 2, rule="type-only")


def test_ignores_are_read_from_a_broken_buffer():
    ignores = ignored_kinds("def test_a():\n    assert f(1 == 1  # prism: ignore[weak-assertion]\n")

    assert ignores == {2: frozenset({"weak-assertion"})}


def test_edit_appends_a_comment_and_keeps_the_line_ending():
    assert ignore_comment_edit("    assert f(1) == 2   \n", "rejects-valid") == (
        "    assert f(1) == 2  # prism: ignore[rejects-valid]\n"
    )


def test_edit_merges_into_an_existing_ignore_comment():
    line = "    assert f(1) == 2  # noqa  # prism: ignore[weak-assertion]"

    assert ignore_comment_edit(line, "rejects-valid") == (
        "    assert f(1) == 2  # noqa  # prism: ignore[weak-assertion, rejects-valid]"
    )


def test_edit_leaves_a_line_that_already_ignores_the_kind_unchanged():
    assert ignore_comment_edit("x = 1  # prism: ignore[a, b]\r\n", "b") == "x = 1  # prism: ignore[a, b]\r\n"
    assert ignore_comment_edit("x = 1  # prism: ignore", "b") == "x = 1  # prism: ignore"


def test_edit_does_not_mistake_a_hash_in_a_string_for_a_comment():
    line = '    assert f("# prism: ignore[x]") == 2'

    assert ignore_comment_edit(line, "rejects-valid") == line + "  # prism: ignore[rejects-valid]"


def test_edited_line_round_trips_through_the_parser():
    edited = ignore_comment_edit("    assert f(1) == 2", "accepts-invalid")
    ignores = ignored_kinds("def test_a():\n" + edited + "\n")

    assert is_ignored(ignores, "accepts-invalid", 2, 2)

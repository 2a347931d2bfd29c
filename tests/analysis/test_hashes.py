"""Test hashes decide what reruns: own text per test, shared code for everything else."""

from __future__ import annotations

from textwrap import dedent

from prism_lsp.analysis.suite_map import parse_suite

BASE = dedent(
    """\
    import pytest
    from minutes import whole_minutes

    LIMIT = 60


    @pytest.fixture
    def secs():
        return 120


    def test_one(secs):
        assert whole_minutes(secs) == 2


    class TestTwo:
        def setup_method(self):
            self.value = 1

        def test_two(self):
            assert whole_minutes(61) == 1
    """
)


def test_editing_one_test_changes_only_its_hash():
    before = parse_suite(BASE)
    after = parse_suite(BASE.replace("== 2", "== 3"))

    assert after.test_hashes()["test_one"] != before.test_hashes()["test_one"]
    assert after.test_hashes()["TestTwo::test_two"] == before.test_hashes()["TestTwo::test_two"]
    assert after.shared_hash == before.shared_hash


def test_hash_survives_moving_the_test_down_the_file():
    before = parse_suite(BASE)
    moved = parse_suite(BASE.replace("LIMIT = 60\n", "LIMIT = 60\n\n\n\n"))

    assert moved.tests[0].span.start_line == before.tests[0].span.start_line + 3
    assert moved.test_hashes() == before.test_hashes()
    assert moved.shared_hash == before.shared_hash


def test_adding_a_test_keeps_other_hashes_and_the_shared_hash():
    before = parse_suite(BASE)
    after = parse_suite(BASE + "\n\ndef test_three():\n    assert whole_minutes(180) == 3\n")

    assert after.shared_hash == before.shared_hash
    for name, digest in before.test_hashes().items():
        assert after.test_hashes()[name] == digest
    assert "test_three" in after.test_hashes()


def test_decorator_change_changes_the_test_hash():
    text = "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_p(x):\n    assert f(x) == x\n"
    before = parse_suite(text)
    after = parse_suite(text.replace("[1]", "[1, 2]"))

    assert after.test_hashes()["test_p"] != before.test_hashes()["test_p"]


def test_shared_code_changes_change_the_shared_hash():
    base = parse_suite(BASE).shared_hash

    assert parse_suite(BASE.replace("LIMIT = 60", "LIMIT = 61")).shared_hash != base  # constant
    assert parse_suite(BASE.replace("return 120", "return 121")).shared_hash != base  # fixture
    assert parse_suite("import math\n" + BASE).shared_hash != base  # import
    # A non-test member of a test class can affect its tests, so it is shared code too.
    assert parse_suite(BASE.replace("self.value = 1", "self.value = 2")).shared_hash != base


def test_hashes_are_stable_across_parses():
    assert parse_suite(BASE).test_hashes() == parse_suite(str(BASE)).test_hashes()
    assert parse_suite(BASE).shared_hash == parse_suite(BASE).shared_hash


def test_comments_outside_the_tests_change_no_hash():
    before = parse_suite(BASE)
    after = parse_suite(
        "# a new header comment\n"
        + BASE.replace("LIMIT = 60", "LIMIT = 60  # seconds").replace(
            "class TestTwo:", "# the second group\nclass TestTwo:"
        )
    )
    assert after.shared_hash == before.shared_hash
    assert after.test_hashes() == before.test_hashes()
    # A '#' inside a string is not a comment: changing it is a change.
    assert (
        parse_suite(BASE.replace("LIMIT = 60", "LIMIT = '# 60'")).shared_hash
        != parse_suite(BASE.replace("LIMIT = 60", "LIMIT = '# 61'")).shared_hash
    )

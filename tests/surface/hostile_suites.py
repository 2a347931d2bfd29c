"""Suites built to hit a document limit: many small tests, or one assertion nested deep."""

from __future__ import annotations


def many_tests(size: int) -> str:
    """A suite of `size` bytes or a little more (up to one test more), of many small tests."""
    parts, total, i = ["from solution import f\n\n"], 0, 0
    while total < size:
        parts.append(f"def test_{i}():\n    assert f({i}) == {i}\n\n")
        total += len(parts[-1])
        i += 1
    return "".join(parts)


def deep(levels: int) -> str:
    return "from solution import f\n\n\ndef test_deep():\n    assert " + "not " * levels + "f(1) == 2\n"

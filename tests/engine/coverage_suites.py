"""Suites whose lines the coverage tests count by hand, shared by the engine, CLI, server and MCP tests."""

CART_SUITE = """\
from shop.cart import cart_total


def test_empty():
    assert cart_total([]) == 0


def test_one():
    assert cart_total([("apple", 2)]) == 70
"""

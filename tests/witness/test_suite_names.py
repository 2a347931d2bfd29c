"""What entry-point inference reads of a suite, worked out per top-level statement: the same as reading
the whole module, and an edit of one test parses only that test again."""

from __future__ import annotations

import ast

import pytest

from prism_lsp.witness import suite_names as names_module
from prism_lsp.witness.suite_names import SuiteNames, suite_names

HEAD = "import os\nimport pkg.sub as ps\nfrom pkg import mod\nfrom pkg.mod import f as g, h\nfrom x import *\n"

CASES = [
    # (suite text, what it shows)
    (HEAD + "def test_a():\n    assert g(1) == mod.k(2)\n", "imports+calls"),
    (
        HEAD + "def test_a():\n    s = mod.f\n    assert s(1)\n\ndef test_b():\n    s = mod.g\n",
        "alias clash across tests",
    ),
    (
        HEAD + "class TestA:\n    def test_x(self):\n        t = ps.run\n        check(t, h)\n",
        "method alias and passed function",
    ),
    (HEAD + "x = 1; y = mod.f(x)\nif True:\n    import json\n", "semicolons and nested import"),
]


def whole(text: str) -> SuiteNames:
    """The reading of the whole module at once: what the per-statement reading must equal."""
    return names_module._merge([names_module._facts_of(ast.parse(text))])


@pytest.mark.parametrize("text", [c[0] for c in CASES], ids=[c[1] for c in CASES])
def test_reading_per_statement_equals_reading_the_module(text):
    assert suite_names(text) == whole(text)


def test_what_is_read():
    got = suite_names(CASES[0][0])
    assert got.imports[:3] == (("import", "os", "", ""), ("import", "pkg.sub", "", "ps"), ("from", "pkg", "mod", ""))
    assert ("from", "pkg.mod", "f", "g") in got.imports
    assert got.called == {"g", "mod.k"}
    clash = suite_names(CASES[1][0])
    assert "s" not in clash.aliases  # bound to mod.f in one test and to mod.g in another
    assert suite_names(CASES[2][0]).aliases == {"t": "ps.run"}


def test_a_buffer_python_does_not_compile_is_read_whole():
    """tree-sitter takes a stray indented block after a dedent; CPython does not: nothing is read,
    as when the module is read whole."""
    text = "from pkg import mod\n\ndef test_a():\n    assert mod.f(1)\nx = 1\n    mod.g(2)\n"
    with pytest.raises(SyntaxError):
        ast.parse(text)
    assert suite_names(text) is None


def test_an_edit_of_one_test_parses_only_that_test_again(monkeypatch):
    tests = "".join(f"def test_{i}():\n    assert mod.f({i}) == {i}\n\n" for i in range(50))
    text = "from pkg import mod\n\n" + tests
    suite_names(text)
    parsed = []
    real = names_module._parse
    monkeypatch.setattr(names_module, "_parse", lambda piece: parsed.append(piece) or real(piece))
    edited = text.replace("mod.f(7) == 7", "mod.f(7) == mod.h(7)")
    got = suite_names(edited)
    assert parsed == [b"def test_7():\n    assert mod.f(7) == mod.h(7)"]
    assert got == whole(edited) and "mod.h" in got.called

"""The analysis's per-statement shortcuts (`syntax.compiles_by_statement`, the nesting check) give
the whole buffer's answers: a syntax error is never missed, a nesting past the limit never passed."""

from __future__ import annotations

import warnings

import pytest

from prism_lsp.analysis import syntax
from prism_lsp.analysis.limits import MAX_NESTING
from prism_lsp.analysis.source import Source
from prism_lsp.analysis.suite_map import parse_suite

BUFFERS = [
    # (what, buffer)
    ("plain statements", "import os\n\ndef test_a():\n    assert os\n"),
    ("return outside a function", "x = 1\nreturn x\n"),
    ("break outside a loop", "def test_a():\n    pass\nbreak\n"),
    ("await outside async", "async def f():\n    await g()\nawait f()\n"),
    ("a future import first", "from __future__ import annotations\nx: int = 1\n"),
    ("a docstring then a future import", '"""Doc."""\nfrom __future__ import annotations\nx = 1\n'),
    ("a future import after a statement", "import os\nfrom __future__ import annotations\n"),
    ("an unknown future feature", "from __future__ import nope\n"),
    ("barry_as_FLUFL changes parsing", "from __future__ import barry_as_FLUFL\nx = 1 <> 2\n"),
    ("a parenthesised future import", "from __future__ import (annotations,\n    division)\nx = 1 / 2\n"),
    ("global after an assignment", "x = 1\nglobal x\n"),
    ("global before an assignment", "global x\nx = 1\n"),
    ("nonlocal at module level", "nonlocal x\n"),
    ("a duplicate argument", "def test_a(x, x):\n    pass\n"),
    ("a continued line", "x = 1 + \\\n    2\ndef test_a():\n    assert x\n"),
    ("import star inside a function", "def test_a():\n    from os import *\n"),
    ("a tuple assert warns, not fails", "def test_a():\n    assert (1, 'always')\n"),
    ("an unclosed bracket", "def test_a():\n    assert f(1\n"),
    ("a stray indented line tree-sitter takes", "def test_a():\n    assert 1\nx = 1\n    f(2)\n"),
    ("statements after a semicolon", "x = 1; y = 2\nz = x;\n"),
    ("a stray semicolon line", "x = 1\n;\n"),
]


@pytest.mark.parametrize(("what", "buffer"), BUFFERS, ids=[b[0] for b in BUFFERS])
def test_statement_by_statement_agrees_with_the_compiler(what, buffer):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(buffer, "<suite>", "exec", dont_inherit=True)
        compiles = True
    except SyntaxError:
        compiles = False
    source = Source(buffer)
    if syntax.compiles_by_statement(source, [source.whole()]):
        assert compiles, "the shortcut said a buffer compiles that CPython refuses"
    assert (not parse_suite(buffer).syntax_errors) == compiles


def test_an_edited_large_module_is_decided_by_statement():
    tests = "".join(f"def test_{i}():\n    assert f({i}) == {i}\n\n" for i in range(300))
    before = "def f(x):\n    return x\n\n" + tests
    after = before.replace("assert f(150) == 150", "assert f(150) == 151")
    for text in (before, after):
        source = Source(text)
        assert syntax.compiles_by_statement(source, [source.whole()])
        assert parse_suite(text).syntax_errors == []
    broken = before.replace("assert f(150) == 150", "assert f(150 == 150")
    assert [i.span.start_line for i in parse_suite(broken).syntax_errors] == [
        before.splitlines().index("    assert f(150) == 150") + 1
    ]


@pytest.mark.parametrize("where", ["first", "last"])
def test_nesting_past_the_limit_is_found_in_any_statement(where):
    deep = "x = " + "-" * (MAX_NESTING + 5) + "1\n"
    plain = "".join(f"def test_{i}():\n    assert {i}\n" for i in range(20))
    text = deep + plain if where == "first" else plain + deep
    line = 1 if where == "first" else plain.count("\n") + 1
    assert parse_suite(text).problem == f"the document nests code more than {MAX_NESTING} levels deep (line {line})"
    assert parse_suite(plain + "x = " + "-" * (MAX_NESTING - 10) + "1\n").problem is None

"""The suite compiled per top-level statement (`engine/suite_statements.py`) is the code a whole
compile gives (`_prism_suitecode.rewritten_code`), edit after edit, while reparsing only what changed."""

from __future__ import annotations

import random
import types

import pytest

from prism_lsp.engine.suite_statements import StatementCompiler
from prism_lsp.runner import _prism_suitecode as suitecode

PATH = "/prism-suite/tests/test_mod.py"

_FIELDS = (
    "co_code",
    "co_names",
    "co_varnames",
    "co_firstlineno",
    "co_linetable",
    "co_exceptiontable",
    "co_flags",
    "co_name",
    "co_qualname",
    "co_freevars",
    "co_cellvars",
    "co_filename",
)


def difference(a: types.CodeType | None, b: types.CodeType | None) -> str | None:
    """Where two compiles differ (instructions, names, every position, constants), or None."""
    if a is None or b is None:
        return None if a is b else f"code {a is not None} vs {b is not None}"
    for name in _FIELDS:
        if getattr(a, name) != getattr(b, name):
            return f"{a.co_qualname}: {name}"
    if len(a.co_consts) != len(b.co_consts):
        return f"{a.co_qualname}: constants"
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            found = difference(x, y)
            if found:
                return found
        elif type(x) is not type(y) or x != y:
            return f"{a.co_qualname}: constant {x!r:.40} vs {y!r:.40}"
    return None


def whole(text: str) -> types.CodeType | None:
    return suitecode.rewritten_code(text.encode("utf-8"), PATH)


def module(tests: int = 40) -> str:
    """A test module of the shapes the rewrite handles: compare, call, boolean, walrus, messages,
    module-level asserts, decorators, classes, nested functions, multi-line strings and calls."""
    parts = ['"""Tests of a module."""', "from __future__ import annotations", "", "import pytest", ""]
    parts += ["assert 1 + 1 == 2, 'module level'", "A = 1; B = 2", ""]
    for i in range(tests):
        parts += [
            "",
            "@pytest.mark.parametrize('x', [1, 2])",
            f"def test_f{i}(x):",
            f"    assert x * {i} == {i} * x",
            "    assert all(y > 0 for y in [x, x + 1]), f'{x} bad'",
            "    assert (n := len([x])) == 1 and n",
            "    text = '''several",
            "    lines'''",
            "    assert text.count('\\n') == 1",
            "",
            f"class TestC{i}:",
            "    def helper(self):",
            "        def inner():",
            "            assert True",
            "        return inner",
            "",
            "    def test_m(self):",
            "        assert self.helper() is not None, (",
            "            'a message',",
            "        )",
        ]
    return "\n".join(parts) + "\n"


def line_edits(text: str, seed: int, count: int) -> list[tuple[str, types.CodeType | None]]:
    """`count` random line edits, each with its whole compile; each from the last that compiled."""
    rng = random.Random(seed)
    lines = text.split("\n")
    versions = []
    for _ in range(count):
        k = rng.randrange(len(lines))
        kind = rng.choice(["comment", "insert", "delete", "duplicate", "assert", "blank"])
        new = list(lines)
        if kind == "comment":
            new[k] += "  # edited"
        elif kind == "insert":
            new.insert(k, new[k])
        elif kind == "delete":
            del new[k]
        elif kind == "duplicate":
            new[k:k] = new[k : k + 3]
        elif kind == "assert":
            new.insert(k, " " * (len(new[k]) - len(new[k].lstrip())) + "assert 1 == 1")
        else:
            new.insert(k, "")
        version = "\n".join(new)
        versions.append((version, whole(version)))
        if versions[-1][1] is not None:
            lines = new
    return versions


def test_random_edits_give_the_whole_compile():
    compiler = StatementCompiler()
    text = module(8)
    assert difference(compiler.code(text, PATH), whole(text)) is None
    reparsed = []
    for version, code in line_edits(text, seed=7, count=25):
        assert difference(compiler.code(version, PATH), code) is None
        reparsed.append(compiler.reparsed_lines)
    lines = text.count("\n")
    # Most edits reparse a few statements, not the module.
    assert sorted(reparsed)[len(reparsed) // 2] < lines / 4


EDITS = [
    # (what, before, after)
    ("a test's line changes", "def test_a():\n    assert 1 == 1\n", "def test_a():\n    assert 1 == 2\n"),
    ("a line above moves the rest", "def test_a():\n    assert 1 == 1\n", "\n\ndef test_a():\n    assert 1 == 1\n"),
    (
        "a decorator added before a def",
        "x = 1\n\ndef test_a():\n    pass\n",
        "x = 1\n\n@staticmethod\ndef test_a():\n    pass\n",
    ),
    ("statements sharing a line", "a = 1; b = 2\nassert a\n", "a = 1; b = 3\nassert a\n"),
    ("a module-level assert moves", "x = 1\nassert x == 1\n", "x = 1\n\n\nassert x == 1\n"),
    (
        "a docstring comes first",
        "import os\n\ndef test_a():\n    assert os\n",
        '"""Doc."""\nimport os\n\ndef test_a():\n    assert os\n',
    ),
    (
        "a future import first",
        "def test_a():\n    assert 1\n",
        "from __future__ import annotations\ndef test_a():\n    assert 1\n",
    ),
    ("a future import placed late", "import os\n", "import os\nfrom __future__ import annotations\n"),
    ("a syntax error", "def test_a():\n    assert 1\n", "def test_a(:\n    assert 1\n"),
    ("a continuation line before the change", "x = 1 + \\\n  2\ny = 3\n", "x = 1 + \\\n  2\ny = 4\n"),
    ("an encoding declaration", "# -*- coding: utf-8 -*-\nx = 1\n", "# -*- coding: utf-8 -*-\nx = 2\n"),
    ("Windows line ends", "x = 1\r\ny = 2\r\n", "x = 1\r\ny = 3\r\n"),
    ("a warning (always-true assert)", "def test_a():\n    assert 1\n", "def test_a():\n    assert (1, 'm')\n"),
    ("rewriting switched off", '"""PYTEST_DONT_REWRITE"""\nassert 1\n', '"""PYTEST_DONT_REWRITE"""\nassert 2\n'),
    ("a comment edited", "x = 1\n# one\ny = 2\n", "x = 1\n# two\ny = 2\n"),
    ("everything removed", "x = 1\n", ""),
    ("an unclosed bracket after a good region", "x = 1\ny = 2\n", "x = 1\ny = (2\n"),
]


@pytest.mark.parametrize(("what", "before", "after"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_gives_the_whole_compile(what, before, after):
    compiler = StatementCompiler()
    assert difference(compiler.code(before, PATH), whole(before)) is None
    assert difference(compiler.code(after, PATH), whole(after)) is None
    assert difference(compiler.code(before, PATH), whole(before)) is None  # and back


def test_a_one_line_edit_reparses_that_statement_and_its_neighbours():
    compiler = StatementCompiler()
    text = module(30)
    compiler.code(text, PATH)
    lines = text.split("\n")
    k = lines.index("def test_f15(x):") + 1
    lines[k] = lines[k].replace("==", "!=")
    assert compiler.code("\n".join(lines), PATH) is not None
    assert 0 < compiler.reparsed_lines < 40


def test_the_pass_hook_gets_the_moved_line():
    """The rewrite writes each assertion's line into the code for pytest's pass hook: after lines
    are added above a kept statement, it is the new line (the per-assertion outcomes depend on it)."""
    compiler = StatementCompiler()
    text = "def test_a():\n    assert 1 == 1\n"
    compiler.code(text, PATH)
    code = compiler.code("# a\n# b\n" + text, PATH)
    assert code is not None
    test_a = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    assert 4 in test_a.co_consts  # the assert now on line 4
    assert 2 not in test_a.co_consts

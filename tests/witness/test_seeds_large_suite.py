"""A repository's large test module: its literal calls are read with the module's text split once.

`ast.get_source_segment` splits the whole text again for every node, so reading the calls of a
test module with thousands of them took time quadratic in its size.
"""

from __future__ import annotations

import ast
import sys

from prism_lsp.witness.entry import Entry
from prism_lsp.witness.seeds import suite_calls

CALLS = 400


def _suite() -> str:
    # CRLF and a form feed between tests: lines as the parser counts them, not as str.splitlines does.
    tests = [
        f"def test_{i}():\r\n    assert singularize('glass{i}',\r\n        {i}) == 'x'\r\n\x0c\r\n"
        for i in range(CALLS)
    ]
    return "from boltons.strutils import singularize\r\n\r\n" + "".join(tests)


def test_every_call_read_with_its_source_and_the_text_split_once():
    text = _suite()
    entry = Entry("boltons.strutils", "singularize", ("singularize",))
    splits = 0

    def profile(frame, event, arg):
        nonlocal splits
        if event == "call" and frame.f_code is ast._splitlines_no_ff.__code__:
            splits += 1

    sys.setprofile(profile)
    try:
        calls = suite_calls(text, [entry], forms=True)
    finally:
        sys.setprofile(None)
    assert len(calls) == CALLS
    assert calls[7].source == "singularize('glass7',\r\n        7)"
    assert calls[7].args == ("glass7", 7) and calls[7].test == "test_7"
    nodes = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)][::40]
    assert {ast.get_source_segment(text, n) for n in nodes} <= {c.source for c in calls}
    assert splits <= 1


def test_the_calls_grouped_by_entry_once_in_source_order():
    """The panel search and the build's probing take each entry's seeds from one grouping of the
    calls (a scan of every call per entry point was entries × calls on a repository's tests)."""
    from prism_lsp.witness.panel_search import calls_by_entry

    text = "from m import f, g\n\ndef test_a():\n    f(1)\n    g(2)\n    f(3)\n"
    entries = [Entry("m", "f", ("f",)), Entry("m", "g", ("g",))]
    assert calls_by_entry(suite_calls(text, entries, forms=True)) == {"m:f": [(1,), (3,)], "m:g": [(2,)]}

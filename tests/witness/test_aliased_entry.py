"""A test that binds a name to an entry point and calls it by that name seeds the witness search."""

from __future__ import annotations

from prism_lsp.witness.entry import entry_points
from prism_lsp.witness.seeds import suite_calls


def test_a_test_binding_a_name_to_the_entry_point_calls_it_by_that_name(tmp_path):
    """boltons' `singularize = strutils.singularize` then `singularize('glass')`: the calls are the
    entry point's seeds (the panel build found no input for the fix's function without them)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "strutils.py").write_text("def singularize(w):\n    return w\n")
    text = (
        "from pkg import strutils\n\n"
        "def test_ss():\n    singularize = strutils.singularize\n    assert singularize('glass') == 'glass'\n"
    )
    entries = entry_points(text, tmp_path)
    assert [e.spec for e in entries] == ["pkg.strutils:singularize"]
    assert [c.args for c in suite_calls(text, entries, forms=True)] == [("glass",)]

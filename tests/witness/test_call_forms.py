"""Seeds from the calls real repositories' tests make: keyword arguments, methods of an instance made
from literals, modules imported from a package, a src layout. Each becomes an entry with its call
form, and `Entry.literal` is what the probe spreads (issue 22: no witness found for real functions)."""

import ast

from prism_lsp.witness.entry import entry_points
from prism_lsp.witness.seeds import formed_entries, suite_calls

SUITE = """\
from textkit import inflect
from textkit.inflect import Inflector, singularize


def test_singular():
    assert singularize("glass") == "glass"
    assert singularize("Cats", keep_case=True) == "Cat"
    assert Inflector(uncountable=["sheep"]).singular("glasses") == "glass"
    i = Inflector()
    assert i.singular("dogs") == "dog"
    assert inflect.ordinal(3) == "3rd"
"""


def _program(tmp_path):
    pkg = tmp_path / "initial" / "src" / "textkit"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "inflect.py").write_text("def singularize(w, keep_case=False):\n    return w\n")
    return tmp_path / "initial"


def test_keyword_and_method_calls_become_entries_with_their_call_form(tmp_path):
    entries = entry_points(SUITE, _program(tmp_path))
    # A src layout, and `from pkg import module` then `module.f(...)`.
    assert {e.spec for e in entries} >= {
        "textkit.inflect:singularize",
        "textkit.inflect:Inflector",
        "textkit.inflect:ordinal",
    }
    calls = suite_calls(SUITE, entries, forms=True)
    formed = {e.spec: e for e in formed_entries(calls)}
    method = formed["textkit.inflect:Inflector.singular(init=0,uncountable;1)"]
    assert method.target == "textkit.inflect:Inflector.singular"
    (args,) = [c.args for c in calls if c.entry == method.spec]
    assert args == (["sheep"], "glasses")
    assert ast.literal_eval(method.literal(args)) == {
        "args": ("glasses",),
        "kwargs": {},
        "init": (),
        "init_kwargs": {"uncountable": ["sheep"]},
    }
    assert method.call_text("Inflector", (["ox"], "glass"), repr) == "Inflector(uncountable=['ox']).singular('glass')"
    # The instance a test made first, and its method call later.
    assert [c.args for c in calls if c.entry == "textkit.inflect:Inflector.singular(init=0;1)"] == [("dogs",)]
    keyword = formed["textkit.inflect:singularize(1,keep_case)"]
    assert keyword.literal(("Cats", True)) == "{'args': ('Cats',), 'kwargs': {'keep_case': True}}"
    assert keyword.accepts(("a", True)) and not keyword.accepts(("a",))
    # Plain calls stay plain (what the suggestions and the hover read), and are there without `forms`.
    plain = suite_calls(SUITE, entries)
    assert [(c.entry, c.args) for c in plain] == [
        ("textkit.inflect:singularize", ("glass",)),
        ("textkit.inflect:Inflector", ()),
        ("textkit.inflect:ordinal", (3,)),
    ]
    assert all(c.via is None for c in plain)


CLASS_SUITE = """\
from shelf import Shelf


def test_shelf():
    assert Shelf(["a", "b"], limit=3).count("a") == 1
"""


def test_a_method_mutant_gets_a_witness_from_a_method_call_with_keywords(tmp_path, engine):
    """In the real sandbox: the probe makes a fresh `Shelf(items, limit=...)` per call and calls its
    method; a mutant of the method is told apart by a call written as the suite would."""
    from prism_lsp.tasks import load_task
    from prism_lsp.witness import search_panel
    from tests.conftest import write_task

    body = (
        "class Shelf:\n    def __init__(self, items, limit=10):\n        self.items = list(items)[:limit]\n\n"
        "    def count(self, item):\n        return sum(1 for i in self.items if i {op} item)\n"
    )
    root = write_task(
        tmp_path / "task",
        initial={"shelf.py": body.format(op="is not")},
        candidates=[
            {"id": "reference", "reference": True, "files": {"shelf.py": body.format(op="==")}},
            {"id": "counts-others", "label": "invalid", "files": {"shelf.py": body.format(op="!=")}},
        ],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_shelf.py": CLASS_SUITE},
    )
    found = search_panel(engine, load_task(root), CLASS_SUITE).result.witnesses
    w = found["counts-others"]
    assert w.call.startswith("Shelf(") and ").count(" in w.call and "limit=" in w.call, w
    assert w.expected != next(iter(w.got.values()))

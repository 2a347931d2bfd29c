"""Arguments a test builds with the program's own API (`G = nx.path_graph(4)` then
`nx.spring_layout(G, fixed=[0])`): the call seeds the search, the object is made inside the
sandbox, and a witness shows the call as the suite writes it (issue 22: networkx's
`spring_layout` was never searched, none of its calls having literal arguments)."""

import ast

from prism_lsp.witness.built import Built, as_built
from prism_lsp.witness.entry import entry_points
from prism_lsp.witness.inputs import generate
from prism_lsp.witness.seeds import suite_calls
from prism_lsp.witness.values import literal

SUITE = """\
import graphs


def test_layout():
    g = graphs.path(3)
    assert graphs.layout(g, fixed=[0]) == {0: 0, 1: 1, 2: 2}
    h = graphs.empty()
    assert graphs.layout(h) == {}


def test_rebound():
    g = graphs.path(2)
    g = make_somehow()
    graphs.layout(g)
"""

PROGRAM = """\
class Graph:
    def __init__(self, nodes):
        self.nodes = list(nodes)


def path(n):
    try:  # where this runs: the sandbox's host view is read-only, the host's is not
        with open({marker!r}, "w") as f:
            f.write("built on the host")
    except OSError:
        pass
    return Graph(range(n))


def empty():
    return Graph([])


def layout(g, fixed=()):
    if any(n not in g.nodes for n in fixed):
        raise ValueError("fixed nodes not in the graph")
    return {{n: n {op} 2 for n in g.nodes}}
"""


def _layout_calls(tmp_path):
    initial = tmp_path / "initial"
    initial.mkdir()
    (initial / "graphs.py").write_text(PROGRAM.format(marker=str(tmp_path / "marker"), op="*"))
    return [c for c in suite_calls(SUITE, entry_points(SUITE, initial), forms=True) if "layout" in c.entry]


def test_a_name_bound_to_a_call_of_the_program_is_an_argument_built_by_that_call(tmp_path):
    calls = _layout_calls(tmp_path)
    # The rebound `g` stands for nothing: that call is left out.
    assert [(c.entry, [literal(a) for a in c.args]) for c in calls] == [
        ("graphs:layout(1,fixed)", ["graphs.path(3)", "[0]"]),
        ("graphs:layout", ["graphs.empty()"]),
    ]
    built = as_built(calls[0].args[0])
    assert built == Built("graphs:path", "graphs.path", (3,))
    # What the probe reads back: a plain literal naming the function, never the object.
    sent = ast.literal_eval(calls[0].via.literal(calls[0].args))
    assert as_built(sent["args"][0]) == built and sent["kwargs"] == {"fixed": [0]}
    assert not (tmp_path / "marker").exists()


def test_the_search_varies_the_arguments_of_the_building_call(tmp_path):
    seeds = [c.args for c in _layout_calls(tmp_path) if c.entry == "graphs:layout(1,fixed)"]
    shown = {", ".join(literal(a) for a in args) for args in generate(seeds, {})}
    assert {"graphs.path(3), [0]", "graphs.path(0), [0]", "graphs.path(4), [0]", "graphs.path(3), []"} <= shown


def test_a_mutant_is_told_apart_on_an_object_the_sandbox_builds(tmp_path, engine):
    from prism_lsp.tasks import load_task
    from prism_lsp.witness import search_panel
    from tests.conftest import write_task

    marker = str(tmp_path / "marker")
    root = write_task(
        tmp_path / "task",
        initial={"graphs.py": PROGRAM.format(marker=marker, op="+")},
        candidates=[
            {"id": "reference", "reference": True, "files": {"graphs.py": PROGRAM.format(marker=marker, op="*")}},
            {"id": "squares", "label": "invalid", "files": {"graphs.py": PROGRAM.format(marker=marker, op="**")}},
        ],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_graphs.py": SUITE},
    )
    found = search_panel(engine, load_task(root), SUITE).result.witnesses
    w = found["squares"]
    assert w.call.startswith("graphs.layout(graphs.path("), w
    assert w.kind == "value" and w.expected != next(iter(w.got.values()))
    assert found["initial"].call.startswith("graphs.layout(graphs.path(")
    assert not (tmp_path / "marker").exists()  # built in the sandbox only


def test_a_building_call_is_not_varied_past_the_size_of_the_suites_own():
    seeds = [(Built("graphs:complete", "graphs.complete", (9,)),)]
    sizes = {as_built(args[0])["args"] for args in generate(seeds, {})}
    assert (9,) in sizes and (0,) in sizes and (10,) in sizes
    assert all(abs(n) <= 10 for (n,) in sizes)  # no complete(97), no complete(10**6)


def test_a_call_passing_a_keyword_the_changed_lines_name_is_searched_first():
    from prism_lsp.witness.entry import CallForm, Entry
    from prism_lsp.witness.panel_search import Reach

    reach = Reach(frozenset({"graphs.layout"}), frozenset({"layout"}), words=frozenset({"fixed", "np"}))
    entries = [
        Entry("graphs", "path", ("graphs.path",)),
        Entry("graphs", "layout", ("graphs.layout",)),
        Entry("graphs", "layout", ("graphs.layout",), CallForm(positional=1, keywords=("seed",))),
        Entry("graphs", "layout", ("graphs.layout",), CallForm(positional=1, keywords=("fixed",))),
    ]
    assert [e.spec for e in sorted(entries, key=reach.order)] == [
        "graphs:layout(1,fixed)",
        "graphs:layout",
        "graphs:layout(1,seed)",
        "graphs:path",
    ]

"""Entry points: declared in prism.toml (`entry = [...]`, checked), inferred from the suite
otherwise, and set by the HumanEval importer from `entry_point`."""

import pytest

from prism_lsp.model.manifest import ManifestError, parse_manifest
from prism_lsp.tasks import load_task
from prism_lsp.witness.entry import entry_points
from prism_lsp.witness.seeds import suite_calls
from tests.conftest import FIXTURES, write_task


def test_inferred_from_functions_the_suite_imports_from_the_program_and_calls():
    suite = (
        "import math\nfrom shop.cart import cart_total\nfrom shop import pricing\nimport shop.pricing as p\n\n"
        "def test_x():\n    assert cart_total([('apple', 1)]) == 35\n    assert p.unit_price('fig') == 15\n"
        "    assert math.floor(1.5) == 1\n"
    )
    found = {e.spec: e.local_names for e in entry_points(suite, FIXTURES / "cart-total" / "initial")}
    assert found == {"shop.cart:cart_total": ("cart_total",), "shop.pricing:unit_price": ("p.unit_price",)}


def test_declared_entries_win_and_are_checked(tmp_path):
    root = write_task(
        tmp_path / "t",
        initial={"solution.py": "def f(x):\n    return x\n"},
        candidates=[{"id": "reference", "reference": True, "files": {}}],
        extra_task='entry = ["solution:f"]',
    )
    task = load_task(root)
    assert task.entry == ("solution:f",)
    assert [e.spec for e in entry_points("from solution import f as g\n\ng(1)\n", task.initial, task.entry)] == [
        "solution:f"
    ]
    (root / "prism.toml").write_text((root / "prism.toml").read_text().replace('"solution:f"', '"solution.f"'))
    with pytest.raises(ManifestError, match=r"task\.entry.*module:function"):
        parse_manifest(root / "prism.toml")


def test_suite_calls_keep_literal_arguments_and_module_constants():
    text = (FIXTURES / "top-scorers" / "suites" / "test_overfit.py").read_text()
    entries = entry_points(text, FIXTURES / "top-scorers" / "initial")
    calls = suite_calls(text, entries)
    assert calls[0].args == ([("ann", 5), ("bob", 7), ("cy", 5), ("dee", 2)], 3)
    assert calls[0].source == "top_scorers(PLAYERS, 3)" and calls[0].test == "test_best_three"


def test_humaneval_import_sets_the_entry_point(tmp_path):
    import json

    from prism_lsp.tasks.importers.common import write_native
    from prism_lsp.tasks.importers.humaneval import read_humaneval

    row = {
        "task_id": "HumanEval/0",
        "prompt": 'def add(a, b):\n    """Add."""\n',
        "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
        "entry_point": "add",
    }
    src = tmp_path / "he.jsonl"
    src.write_text(json.dumps(row) + "\n")
    task = write_native(read_humaneval(src), tmp_path / "out")
    assert task.entry == ("solution:add",)


def test_hypothesis_examples_follow_annotations_else_the_suites_shapes(tmp_path):
    from prism_lsp.witness.strategies import examples

    (tmp_path / "m.py").write_text("def f(xs: list[int], s: str) -> int:\n    return 0\n\ndef g(x):\n    return x\n")
    typed = examples([([1], "a")], tmp_path, "m", "f")
    assert typed and all(
        isinstance(xs, list) and all(type(i) is int for i in xs) and isinstance(s, str) for xs, s in typed
    )
    assert examples([([1], "a")], tmp_path, "m", "f") == typed  # derandomized: the same every time
    shaped = examples([([("ann", 3)], 2)], tmp_path, "m", "g")
    assert shaped and all(
        isinstance(k, int) and all(isinstance(n, str) and isinstance(v, int) for n, v in players)
        for players, k in shaped
    )


def test_humaneval_style_check_calls_count_as_calls_of_the_entry():
    from prism_lsp.tasks.importers.humaneval import suite_text
    from prism_lsp.witness.entry import Entry

    text = suite_text(
        "def check(candidate):\n    assert candidate([1, 2]) == 3\n    assert candidate([]) == 0\n", "total"
    )
    calls = suite_calls(text, [Entry("solution", "total", ("total",))])
    assert [(c.args, c.source) for c in calls] == [(([1, 2],), "candidate([1, 2])"), (([],), "candidate([])")]


def test_a_humaneval_task_gets_witnesses_through_check(tmp_path, engine):
    import json

    from prism_lsp.tasks.importers.common import write_native
    from prism_lsp.tasks.importers.humaneval import read_humaneval
    from prism_lsp.witness import search_panel

    row = {
        "task_id": "HumanEval/9",
        "prompt": 'def total(xs):\n    """Sum of xs."""\n',
        "canonical_solution": "    return sum(xs)\n",
        "entry_point": "total",
        "test": "def check(candidate):\n    assert candidate([1, 2]) == 3\n",
    }
    src = tmp_path / "he.jsonl"
    src.write_text(json.dumps(row) + "\n")
    side = tmp_path / "side.jsonl"
    side.write_text(
        json.dumps(
            {
                "task_id": "HumanEval/9",
                "id": "drops-first",
                "label": "invalid",
                "completion": "    return sum(xs[1:])\n",
            }
        )
        + "\n"
    )
    task = write_native(read_humaneval(src, candidates=side), tmp_path / "out")
    suite = task.initial / "tests" / "test_total.py"
    text = suite.read_text() if suite.is_file() else next(task.root.rglob("test_total.py")).read_text()
    found = search_panel(engine, task, text).result.witnesses
    assert found["drops-first"].call.startswith("total(") and "initial" in found

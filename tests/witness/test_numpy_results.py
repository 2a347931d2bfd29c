"""A numerical program's results (numpy arrays and scalars, alone or inside dicts and lists) are
compared as the numbers they hold: their reprs (`array([...])`, `np.float64(1.5)`) are no literals,
so before, every such result was opaque and no mutant of a numpy function had a witness (issue 22:
networkx's `spring_layout`, a dict of arrays)."""

import ast

import pytest

from prism_lsp.tasks import load_task
from prism_lsp.witness import Prober, programs_of, search_panel
from tests.conftest import write_task

pytest.importorskip("numpy")

LAYOUT = """\
import numpy as np


def layout(nodes, fixed):
    \"\"\"Each node's position: the fixed ones at the origin, the others on a line.\"\"\"
    keep = np.asarray([i for i, n in enumerate(nodes) if n {test} fixed], dtype=int)
    pos = np.arange(len(nodes) * 2, dtype=float).reshape(len(nodes), 2)
    pos[keep] = 0.0
    return {{n: pos[i] for i, n in enumerate(nodes)}}


def spread(xs):
    return np.float64(max(xs) - min(xs)) / {scale}


def shaken(xs, fixed=None):
    \"\"\"The points moved at random, those in `fixed` left alone.\"\"\"
    if fixed is not None:
        fixed = [x for x in fixed if x {test} xs]
    return [x if fixed and x in fixed else x + float(np.random.rand()) for x in xs]


def drawn(n):
    import random

    return [random.random() for _ in range(n)]
"""
SUITE = "from lay import layout\n\n\ndef test_layout():\n    assert len(layout(['a', 'b'], ['a'])) == 2\n"


def _task(tmp_path):
    reference = LAYOUT.format(test="in", scale=2)
    root = write_task(
        tmp_path / "task",
        initial={"lay.py": LAYOUT.format(test="in", scale=1)},
        candidates=[
            {"id": "reference", "reference": True, "files": {"lay.py": reference}},
            {
                "id": "not-in",
                "label": "invalid",
                "files": {"lay.py": reference.replace("n in fixed", "n not in fixed")},
            },
        ],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_lay.py": SUITE},
    )
    return load_task(root)


@pytest.mark.parametrize(
    ("entry", "args", "value"),
    [
        ("lay:layout", "(['a', 'b'], ['a'])", {"a": [0.0, 0.0], "b": [2.0, 3.0]}),
        ("lay:spread", "([1, 4],)", 1.5),
    ],
    ids=["a dict of arrays", "a numpy scalar"],
)
def test_numpy_results_read_back_as_the_numbers_they_hold(tmp_path, engine, entry, args, value):
    task = _task(tmp_path)
    (program,) = [p for p in programs_of(task, engine.cache) if p.id == "reference"]
    (got,) = Prober(engine.pool_for(task)).probe([program], entry, [args])["reference"]
    assert got.error is None and got.exception is None
    assert ast.literal_eval(got.value) == value


def test_a_mutant_of_a_numpy_function_gets_a_witness(tmp_path, engine):
    found = search_panel(engine, _task(tmp_path), SUITE)
    witness = found.result.witnesses["not-in"]
    assert witness.call.startswith("layout(")
    assert ast.literal_eval(witness.expected) != ast.literal_eval(next(iter(witness.got.values())))


@pytest.mark.parametrize(
    ("entry", "args"), [("lay:shaken", "([1, 2],)"), ("lay:drawn", "(3,)")], ids=["numpy", "random"]
)
def test_a_call_that_draws_from_a_global_random_generator_is_not_judged(tmp_path, engine, entry, args):
    task = _task(tmp_path)
    (program,) = [p for p in programs_of(task, engine.cache) if p.id == "reference"]
    (got,) = Prober(engine.pool_for(task)).probe([program], entry, [args])["reference"]
    assert (got.value, got.error) == (None, "random")


def test_chance_never_tells_a_mutant_apart(tmp_path, engine):
    """Every program forked from one runner inherits numpy's random state, so the initial program and
    the reference draw the same numbers there, and a candidate probed in another runner draws others:
    a mutant `shaken` whose change a call never reaches must not be told apart by those."""
    found = search_panel(
        engine, _task(tmp_path), SUITE.replace("layout", "shaken").replace("(['a', 'b'], ['a'])", "([1, 2])")
    )
    for witness in found.result.witnesses.values():
        assert not witness.call.startswith("shaken(")

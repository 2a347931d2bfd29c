"""Witness search never asserts in the open dimension: on every witness, every valid candidate
agrees in the witness's view; inputs where they disagree are listed as open, never witnessed
in their exact value. Fixtures whose statements leave rounding, case and ordering open prove it."""

import pytest

from prism_lsp.tasks import load_task
from prism_lsp.witness import prober_for, programs_of, search_panel
from prism_lsp.witness.values import EXACT, VIEWS, key, same
from tests.conftest import FIXTURES

OPEN = {  # fixture -> what its statement leaves open
    "mean-rounded": "rounding of halves",
    "slugify": "case",
    "find-duplicates": "order",
    "top-scorers": "order of ties",
    "unique-in-order": "list or tuple",
    "format-duration": "padding of hours",
}


@pytest.mark.parametrize("fixture", sorted(OPEN))
def test_witnesses_hold_on_every_valid_candidate(fixture, engine):
    task = load_task(FIXTURES / fixture)
    text = (FIXTURES / fixture / "suites" / "test_weak.py").read_text()
    found = search_panel(engine, task, text)
    assert found.result.witnesses, "the weak suite lets invalid candidates through: there are witnesses to find"
    assert found.result.open_inputs, f"valid candidates disagree somewhere ({OPEN[fixture]})"
    valid = [p for p in programs_of(task, engine.cache) if p.valid]
    prober = prober_for(engine.pool_for(task), task)
    open_calls = {o.call for o in found.result.open_inputs}
    for w in found.result.witnesses.values():
        seen = prober.probe(valid, w.entry, [repr(w.args)])
        behaviours = [seen[p.id][0] for p in valid]
        if w.kind == "mutates":
            assert not any(b.mutated for b in behaviours)
            continue
        view = next(v for v in VIEWS if v.name == w.view)
        keys = [key(b, view) for b in behaviours]
        assert all(same(k, keys[0]) for k in keys), f"{w.call}: valid candidates disagree in view {w.view}"
        if w.kind == "value":
            assert keys[0][0] == "value" and repr(keys[0][2]) == w.expected
        if w.view == EXACT.name:
            assert w.call not in open_calls


def test_open_inputs_name_what_each_valid_candidate_returned(engine):
    task = load_task(FIXTURES / "mean-rounded")
    text = "from solution import mean_rounded\n\n\ndef test_x():\n    assert mean_rounded([1, 2]) == 2\n"
    found = search_panel(engine, task, text)
    halves = [o for o in found.result.open_inputs if o.call == "mean_rounded([1, 2])"]
    assert halves and set(halves[0].values.values()) == {"1", "2"}
    assert all(w.call != "mean_rounded([1, 2])" for w in found.result.witnesses.values())

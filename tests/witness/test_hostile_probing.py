"""Hostile candidates during probing (hangs, os._exit, huge output, huge values, a hang that
swallows its alarm) are errors, never witnesses; an honest wrong candidate still gets one."""

from prism_lsp.tasks import load_task
from prism_lsp.witness import Prober, programs_of, search_panel
from prism_lsp.witness.entry import Entry
from tests.conftest import write_task

SUITE = "from solution import f\n\n\ndef test_f():\n    assert f(2) == 4\n"
HOSTILE = {
    "hangs": "def f(x):\n    while True:\n        pass\n",
    "swallows-alarm": "def f(x):\n    while True:\n        try:\n            while True:\n                pass\n"
    "        except BaseException:\n            pass\n",
    "exits": "import os\n\ndef f(x):\n    os._exit(0)\n",
    "floods": "import sys\n\ndef f(x):\n    sys.stdout.write('x' * (64 << 20))\n    return x * 3\n",
    "huge-value": "def f(x):\n    return [x] * 10 ** 6\n",
}


def hostile_task(tmp_path):
    candidates = [
        {"id": "reference", "reference": True, "files": {"solution.py": "def f(x):\n    return x * 2\n"}},
        {"id": "doubles", "files": {"solution.py": "def f(x):\n    return x + x\n"}},
        {"id": "wrong-at-3", "label": "invalid", "files": {"solution.py": "def f(x):\n    return x * 2 + (x == 3)\n"}},
        *[{"id": cid, "label": "invalid", "files": {"solution.py": body}} for cid, body in HOSTILE.items()],
    ]
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": "def f(x):\n    return x\n"},
        candidates=candidates,
        extra_task='sandbox = "bubblewrap"\ntimeout_s = 5',
        suites={"initial/test_f.py": SUITE},
    )
    return load_task(root)


def test_hostile_candidates_are_errors_never_witnesses(tmp_path, engine):
    task = hostile_task(tmp_path)
    found = search_panel(engine, task, SUITE).result.witnesses
    assert found["wrong-at-3"].call == "f(3)" and found["wrong-at-3"].expected == "6"
    assert found["initial"].expected == "4" or found["initial"].kind == "value"
    for cid in HOSTILE:
        assert cid not in found, f"{cid} got a witness: {found.get(cid)}"


def test_each_hostile_behaviour_is_reported_as_an_error(tmp_path, engine):
    task = hostile_task(tmp_path)
    programs = {p.id: p for p in programs_of(task, engine.cache)}
    prober = Prober(engine.pool_for(task), call_timeout_s=0.5, batch_timeout_s=5)
    calls = ["(1,)", "(2,)"]
    hostile = [c for c in HOSTILE if c != "huge-value"]
    seen = prober.probe([programs[c] for c in ["reference", *hostile]], Entry("solution", "f").spec, calls)
    assert [b.value for b in seen["reference"]] == ["2", "4"]
    assert all(b.error == "timeout" for b in seen["hangs"])
    assert all(b.error in ("batch-timeout", "exited", "timeout") for b in seen["swallows-alarm"])
    assert all(b.error == "exited" for b in seen["exits"])
    # Killed by SIGXFSZ, or (as root, where writes are only cut short) stopped at the output limit.
    assert all(b.error in ("output-limit", "exited") for b in seen["floods"])
    # Building and measuring a million-element list is slow on a loaded machine: with the hangs'
    # half-second it could end as a timeout, so the value limit is asked with time to reach it.
    roomy = Prober(engine.pool_for(task), call_timeout_s=10, batch_timeout_s=30)
    huge = roomy.probe([programs["huge-value"]], Entry("solution", "f").spec, calls)["huge-value"]
    assert [b.error for b in huge] == ["repr-limit", "repr-limit"]


def test_probe_results_are_cached_by_tree_and_call(tmp_path, engine):
    task = hostile_task(tmp_path)
    programs = [p for p in programs_of(task, engine.cache) if p.id in ("reference", "doubles")]
    prober = Prober(engine.pool_for(task))
    first = prober.probe(programs, "solution:f", ["(5,)", "([1],)"])
    sent = prober.requests
    again = prober.probe(programs, "solution:f", ["([1],)", "(5,)"])
    assert prober.requests == sent  # nothing new asked of the runners
    assert (
        [b.value for b in again["doubles"]]
        == ["[1, 1]", "10"]
        == [first["doubles"][1].value, first["doubles"][0].value]
    )

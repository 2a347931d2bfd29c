"""The panel build's time budget holds inside a batch of mutants, not only between batches, and
inside the probe of one entry point, and it bounds the whole command: what it spent before the build
(the interpreter's start, imports, the task's copy) counts.

A batch of 40 mutants on a real repository probed for minutes past `--budget-s` (505 s at 60 s on
boltons' singularize fix, bench/real_repos.py): the budget was checked between batches only. Then,
checked between entry points only, the entry being probed at the deadline still ran every call
(up to 26 s over on the real cases).
"""

from __future__ import annotations

import json
import time

from prism_lsp.cli import prism_main
from prism_lsp.engine.panel import BASELINE
from prism_lsp.engine.session import EngineSession
from prism_lsp.panel.build import BuildOptions, build_panel
from prism_lsp.panel.witnessing import seed_files
from prism_lsp.runner._prism_protocol import ProbeRequest
from prism_lsp.tasks import load_task
from prism_lsp.witness import prober_for, programs_of, search_panel
from prism_lsp.witness.panel_search import Reach, entry_inputs, seeded_entries
from prism_lsp.witness.probe import _MIN_REQUEST_S
from tests.conftest import write_task

SLEEP_S = 0.25
SUITE = "from solution import f\n\n\ndef test_f():\n    assert f(2) == 4\n"


def _build_spent(root, capsys, cache_dir) -> tuple[int, dict]:
    """`prism panel build` with a budget spent before the first batch: its exit code and JSON."""
    args = ["panel", "build", str(root), "--budget-s", "0.001", "--json", "--sandbox", "bubblewrap"]
    code = prism_main([*args, "--cache-dir", str(cache_dir)])
    return code, json.loads(capsys.readouterr().out)


def test_a_spent_budget_stops_the_first_batch_and_says_so(fixture_copy, capsys, cache_dir):
    root = fixture_copy("mean-rounded")
    code, data = _build_spent(root, capsys, cache_dir)
    # Mutants the budget left unjudged are said to be so, not dropped as equivalent.
    assert data["dropped"]["not judged: the time budget ran out while probing"] >= 1
    assert "no witness (open dimension or equivalent)" not in data["dropped"]
    assert any("time budget (0.001 s) inside batch 1" in n for n in data["notes"])
    assert data["kept"] == [] and code == 1


def test_the_deadline_cuts_the_probe_of_the_entry_point_in_progress(tmp_path, engine):
    # The reference takes SLEEP_S a call: its probe of the suite's entry point (dozens of inputs)
    # ran to the runner's 10 s batch limit, whatever the deadline.
    slow = f"import time\n\n\ndef f(x):\n    time.sleep({SLEEP_S})\n    return x * 2\n"
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": "def f(x):\n    return x\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": slow}},
            {
                "id": "wrong-at-3",
                "label": "invalid",
                "files": {"solution.py": "def f(x):\n    return x * 2 + (x == 3)\n"},
            },
        ],
        extra_task='sandbox = "bubblewrap"\ntimeout_s = 5',
        suites={"initial/test_f.py": SUITE},
    )
    task = load_task(root)
    budget_s = 2.0
    # The budget is for probing, not for starting sandboxes, building trees or loading Hypothesis.
    engine.pool_for(task, "bubblewrap").warm()
    reference = next(p for p in programs_of(task, engine.cache) if p.id == "reference")
    entries, calls = seeded_entries(task, SUITE)
    assert len(entry_inputs(task, entries[0], [calls[0].args], {})) > 2 * (budget_s + _MIN_REQUEST_S) / SLEEP_S
    search = search_panel(engine, task, SUITE, sandbox="bubblewrap", deadline=time.monotonic() + budget_s)
    answered = prober_for(engine.pool_for(task, "bubblewrap"), task).answered(reference.tree.digest)
    # Each call takes SLEEP_S: no more than the budget (and one request's minimum) holds were made.
    assert 1 <= answered <= (budget_s + _MIN_REQUEST_S) / SLEEP_S
    assert search.stopped  # said, so the build calls what is left unjudged, not equivalent


def test_a_build_that_tried_every_mutant_does_not_say_the_budget_stopped_it(tmp_path, capsys, cache_dir):
    # The suite calls `f` with no literal arguments: probing has nothing to do, the one batch is
    # every mutant there is, and the budget passes before it ends.
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": "def f(x):\n    return x\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "def f(x):\n    return x * 2\n"}}],
        extra_task='sandbox = "bubblewrap"\ntimeout_s = 5',
        suites={
            "suites/test_f.py": "from solution import f\n\n\ndef test_f():\n    x = len('ab')\n    assert f(x) == 4\n"
        },
    )
    code, data = _build_spent(root, capsys, cache_dir)
    assert 0 < data["tried"] < 40 and code == 1
    assert not any("time budget" in n for n in data["notes"]), data["notes"]


def test_time_spent_before_the_build_counts_against_its_budget(fixture_copy, engine):
    # The same build keeps mutants of mean-rounded given its whole budget (test_build.py); here the
    # command had already spent all but a second of it (start, imports, copying the task) before
    # the build began, and the build used to get the whole budget again on top.
    task = load_task(fixture_copy("mean-rounded"))
    said: list[str] = []
    budget_s = 30.0
    options = BuildOptions(budget_s=budget_s, started=time.monotonic() - (budget_s - 1), progress=said.append)
    result = build_panel(engine, task, options)
    assert said[0].startswith("29.0 s of the 30 s budget spent before the build"), said[0]
    assert result.dropped["not judged: the time budget ran out while probing"] >= 1
    assert any("time budget (30 s) inside batch 1" in n for n in result.notes), result.notes


def test_a_function_the_suite_calls_through_its_package_is_searched_first(tmp_path):
    # more-itertools' tests call `mi.chunked(...)`, defined in more_itertools/more.py and
    # re-exported by the package: the search went through the suite's 200 other entry points first
    # and the budget ran out before it reached the changed function (9 mutants, none judged).
    core = "".join(f"def {name}(x):\n    return x\n\n\n" for name in ("alpha", "beta", "gamma", "zeta"))
    suite = "import pkg\n\n\ndef test_all():\n" + "".join(
        f"    assert pkg.{name}(1) == 1\n" for name in ("alpha", "beta", "gamma", "zeta")
    )
    root = write_task(
        tmp_path / "task",
        initial={"pkg/__init__.py": "from pkg.core import *\n", "pkg/core.py": core},
        candidates=[{"id": "reference", "reference": True, "files": {}}],
        suites={"suites/test_pkg.py": suite},
    )
    entries, _ = seeded_entries(load_task(root), suite, Reach(frozenset({"pkg.core"}), frozenset({"zeta"})))
    assert [e.function for e in entries][:1] == ["zeta"], [e.spec for e in entries]
    # A name of the package that the change does not hold keeps the suite's order.
    assert [e.function for e in entries][1:] == ["alpha", "beta", "gamma"]


def test_inputs_are_seeded_from_the_repository_tests_nearest_the_change_not_its_venv(tmp_path):
    # A task made by `prism init` is the repository: networkx's `.venv` held numpy's and scipy's
    # tests (903 files, 16 MB), whose parse took the build's whole budget and 2 GB on the host.
    call = "from pkg.{m} import f\n\n\ndef test_f():\n    assert f(1) == 1\n"
    root = write_task(
        tmp_path / "task",
        initial={"pkg/__init__.py": "", "pkg/a/core.py": "def f(x):\n    return x\n"},
        candidates=[{"id": "reference", "reference": True, "files": {}}],
        suites={
            "aaa/tests/test_far.py": call.format(m="b"),
            "pkg/a/tests/test_core.py": call.format(m="a.core"),
            ".venv/lib/python3.11/site-packages/numpy/tests/test_numpy.py": call.format(m="numpy"),
        },
    )
    files = [str(p.relative_to(root)) for p in seed_files(load_task(root), ("pkg/a/core.py",))]
    assert files == ["pkg/a/tests/test_core.py", "aaa/tests/test_far.py"], files


def test_a_probe_that_waited_for_a_runner_still_ends_by_its_deadline(tmp_path, cache_dir):
    # One runner, busy with a first probe: the second, queued with a 20 s limit and a deadline
    # just after it was queued, ran all its calls when it started (its limit counted from then).
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": f"import time\n\n\ndef f(x):\n    time.sleep({SLEEP_S})\n    return x\n"},
        candidates=[{"id": "reference", "reference": True, "files": {}}],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_f.py": SUITE},
    )
    task = load_task(root)
    with EngineSession(cache_dir, workers=1) as session:
        pool = session.pool_for(task, "bubblewrap")
        pool.warm()
        tree = str(next(p for p in programs_of(task, session.cache) if p.id == BASELINE).tree.path)

        def probe(n: int) -> ProbeRequest:
            calls = [f"({i},)" for i in range(n)]
            return ProbeRequest(id=f"p{n}", tree=tree, entry="solution:f", calls=calls, timeout_s=20)

        busy = pool.submit(probe(8))  # 8 x SLEEP_S = 2 s of the only runner
        late = pool.submit(probe(40), until=time.monotonic() + 0.2)
        assert len(busy.result().calls) == 8
        answer = late.result()
    answered = [c for c in answer.calls if not c.get("error")]
    # Cut at its deadline's floor (a few calls), not after all 40 (10 s later).
    assert answer.reason == "batch-timeout" and len(answered) < 40 // 4, answer

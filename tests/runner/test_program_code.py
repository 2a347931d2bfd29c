"""The program's modules compiled once per runner (`_prism_programcode`) never change what a program
is judged on: each program runs the code of its own files, a program that rewrites its module before
importing it runs the rewritten text, and probes (`reached_change`, `covered`) are the same as when
the child compiles the module itself. Real runner in the real sandbox; the caps in-process."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.requests import run_request
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from prism_lsp.tasks.pytest_config import initial_config
from tests.conftest import write_task

CALC = """\
def half(x):
    if x > 10:
        return x // 2
    return x // 2


def third(x):
    return x // 3
"""
# Same path, same size of change, different behaviour: a code object shared between them would
# give one of them the other's verdict.
RIGHT = CALC.replace("        return x // 2\n", "        return (x + 0) // 2\n")
WRONG = CALC.replace("        return x // 2\n", "        return (x + 1) // 2\n")
SUITE = "from calc import half\n\n\ndef test_small():\n    assert half(4) == 2\n\n\ndef test_big():\n    assert half(21) == 10\n"


def _task(root: Path, initial: dict[str, str], files: list[str]):
    return load_task(
        write_task(
            root,
            initial={"calc.py": CALC, **initial},
            candidates=[
                {"id": f"c{i}", "reference": i == 0, "files": {"calc.py": text}} for i, text in enumerate(files)
            ],
        )
    )


@contextmanager
def _one_runner(engine, task):
    """A pool of one runner for `task`: what a runner compiled is seen by every request here."""
    shared = engine.pool_for(task, "bubblewrap")
    with RunnerPool(shared.backend, workers=1, python=shared.python, limits=shared.limits) as pool:
        yield pool


def _results(engine, pool, task, text: str = SUITE):
    """Each program's Result (the initial program first), run one after another in `pool`."""
    trees = [engine.cache.baseline(task)] + [engine.cache.candidate(task, c) for c in task.candidates]
    suite = Suite("test_calc.py", text)
    config = initial_config(trees[0].path, suite.rel_path)
    return [pool.submit(run_request(tree, suite, task, config=config)).result() for tree in trees]


def _judged(results) -> list[list[tuple]]:
    return [[(t.name, t.outcome, t.line, t.reached_change, t.covered) for t in r.tests] for r in results]


def test_programs_with_different_files_at_the_same_path_each_run_their_own(tmp_path, engine):
    task = _task(tmp_path / "task", {}, [RIGHT, WRONG, RIGHT])
    with _one_runner(engine, task) as pool:
        first = _results(engine, pool, task)
        again = _results(engine, pool, task)  # everything is compiled already: only bytes are compared
    for results in (first, again):
        assert [{t.name: t.outcome for t in r.tests} for r in results] == [
            {"test_small": "pass", "test_big": "pass"},
            {"test_small": "pass", "test_big": "pass"},
            {"test_small": "pass", "test_big": "fail"},
            {"test_small": "pass", "test_big": "pass"},
        ]
    assert _judged(first) == _judged(again)
    # The runner compiled calc.py once for each distinct (text, changed lines) and every child ran it.
    assert [r.phases.get("program_compiled") for r in first] == [1.0, 1.0, 1.0, 0.0]
    assert [r.phases.get("program_compiled") for r in again] == [0.0] * 4
    assert [r.phases.get("program_code_used") for r in first + again] == [1.0] * 8


TOUCH = """
import pathlib

# Before the suite is collected: the child then imports bytes the runner never compiled.
calc = pathlib.Path(__file__).with_name("calc.py")
calc.write_bytes(calc.read_bytes() + b"\\n# touched\\n")
"""
LOOK = """
import pathlib

calc = pathlib.Path(__file__).with_name("calc.py")
calc.read_bytes()
"""


def test_probes_are_the_same_whether_the_runner_or_the_child_compiled_the_module(tmp_path, engine):
    # The same programs, once with a conftest that changes calc.py's bytes (not its lines) before
    # it is imported, so each child compiles it itself, once with one that only reads it.
    fresh_task = _task(tmp_path / "fresh", {"conftest.py": TOUCH}, [RIGHT, WRONG])
    prepared_task = _task(tmp_path / "prepared", {"conftest.py": LOOK}, [RIGHT, WRONG])
    with _one_runner(engine, fresh_task) as pool:
        fresh = _results(engine, pool, fresh_task)
    with _one_runner(engine, prepared_task) as pool:
        prepared = _results(engine, pool, prepared_task)
    assert [r.phases.get("program_code_used") for r in fresh] == [0.0] * 3
    assert [r.phases.get("program_code_used") for r in prepared] == [1.0] * 3
    assert _judged(fresh) == _judged(prepared)
    changed = [[t.reached_change for t in r.tests] for r in prepared]
    assert changed == [[None, None], [False, True], [False, True]]
    assert all(t.covered for r in prepared for t in r.tests)


REWRITE = """
import pathlib

# Runs before the suite imports calc: plain Python then imports the rewritten text.
calc = pathlib.Path(__file__).with_name("calc.py")
calc.write_text(calc.read_text().replace("return x // 2", "return x // 4"))
"""


def test_a_program_that_rewrites_its_module_before_importing_it_runs_the_rewritten_text(tmp_path, engine):
    task = _task(tmp_path / "task", {"conftest.py": REWRITE}, [RIGHT, RIGHT])
    with _one_runner(engine, task) as pool:
        runs = [_results(engine, pool, task) for _ in range(2)]  # the second: compiled before
    for results in runs:
        # half(4) == 1 now; the candidates' changed line (x + 0) // 2 is left as it was.
        assert [{t.name: t.outcome for t in r.tests} for r in results] == [
            {"test_small": "fail", "test_big": "fail"},
            {"test_small": "fail", "test_big": "pass"},
            {"test_small": "fail", "test_big": "pass"},
        ]
        assert [r.phases.get("program_code_used") for r in results] == [0.0] * 3


@pytest.fixture
def programcode():
    # As the runner imports its modules: by bare name (it compiles with `_prism_collector`'s probes).
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "prism_lsp" / "runner"))
    try:
        import _prism_programcode as module

        _forget(module)
        yield module
        _forget(module)
    finally:
        sys.path.pop(0)


def _forget(module) -> None:
    module._cache.clear()
    module._hints.clear()
    module._total = 0


def _tree(root: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return str(root)


def test_the_cache_keeps_to_its_caps(tmp_path, programcode, monkeypatch):
    run = str(tmp_path / "run" / "tree")
    big = "x = 1\n" * (programcode.MAX_FILE // 6 + 1)
    source = _tree(tmp_path / "src", {"big.py": big, **{f"m{i}.py": f"def f():\n    return {i}\n" for i in range(6)}})
    assert programcode.prepare(run, source, {"big.py": [1]}, [], [], "test_x.py") == 0  # over the size of one file
    monkeypatch.setattr(programcode, "MAX_ENTRIES", 4)
    entry = [f"m{i}:f" for i in range(6)]
    assert programcode.prepare(run, source, {}, entry, [], "test_x.py") == 6
    assert [key[0] for key in programcode._cache] == [f"{run}/m{i}.py" for i in (2, 3, 4, 5)]  # oldest out
    size = len(b"def f():\n    return 0\n")
    monkeypatch.setattr(programcode, "MAX_TOTAL", 2 * size)
    assert programcode.prepare(run, source, {}, ["m0:f"], [], "test_x.py") == 1
    assert [key[0] for key in programcode._cache] == [f"{run}/m5.py", f"{run}/m0.py"]
    assert programcode._total == 2 * size
    assert programcode.prepare(run, source, {}, ["m0:f"], [], "test_x.py") == 0  # cached: nothing compiled


HELPED = "from calc import half\nfrom helper import K\n\n\ndef test_k():\n    assert half(K * 4) == 2\n"


def test_modules_an_earlier_program_imported_are_compiled_for_the_next_one(tmp_path, engine):
    # helper.py is imported without probes (neither changed nor an entry point) by the initial
    # program; c1 changes it (and so is probed there), c2 has the initial's bytes.
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": CALC, "helper.py": "K = 1\n"},
        candidates=[
            {"id": "c0", "reference": True, "files": {"calc.py": RIGHT}},
            {"id": "c1", "files": {"calc.py": RIGHT, "helper.py": "K = 2\n"}},
            {"id": "c2", "files": {"calc.py": WRONG}},
        ],
    )
    task = load_task(root)
    with _one_runner(engine, task) as pool:
        results = _results(engine, pool, task, HELPED)
    assert [[t.outcome for t in r.tests] for r in results] == [["pass"], ["pass"], ["fail"], ["pass"]]
    # The first child said it imported helper.py; from then on the runner compiles it, once.
    assert [r.phases.get("program_compiled") for r in results] == [1.0, 2.0, 1.0, 1.0]
    assert [r.phases.get("program_code_used") for r in results] == [1.0, 2.0, 2.0, 2.0]


def test_modules_a_probe_imported_are_compiled_for_the_next_program(tmp_path, engine):
    # The witness search probes each program in a child that imports the whole program (networkx:
    # 285 modules, a second from source): those children teach the runner as a suite run's do.
    from prism_lsp.runner._prism_protocol import ProbeRequest

    root = write_task(
        tmp_path / "task",
        initial={"calc.py": "from helper import K\n" + CALC, "helper.py": "K = 1\n"},
        candidates=[{"id": "c0", "reference": True, "files": {"calc.py": "from helper import K\n" + RIGHT}}],
    )
    task = load_task(root)
    baseline = engine.cache.baseline(task)
    suite = Suite("test_calc.py", HELPED)
    config = initial_config(baseline.path, suite.rel_path)
    with _one_runner(engine, task) as pool:
        fresh = pool.submit(run_request(baseline, suite, task, config=config)).result()
    with _one_runner(engine, task) as pool:
        probed = pool.submit(ProbeRequest(id="p1", tree=str(baseline.path), entry="calc:half", calls=["(4,)"])).result()
        after = pool.submit(run_request(baseline, suite, task, config=config)).result()
    assert probed.outcome == "pass" and probed.calls[0]["value"] == "2"
    assert [t.outcome for t in fresh.tests] == [t.outcome for t in after.tests] == ["pass"]
    # A new runner's first program compiles helper.py itself (calc.py, an entry point's module, the
    # runner compiles in any case); after a probe, the runner had compiled both.
    assert fresh.phases.get("program_code_used") == 1.0
    assert after.phases.get("program_code_used") == 2.0


TOUCH_HELPER = """
import pathlib

helper = pathlib.Path(__file__).with_name("helper.py")
helper.write_text(helper.read_text().replace("K = 1", "K = 2"))
"""


def test_a_program_that_rewrites_a_module_compiled_for_it_runs_the_rewritten_text(tmp_path, engine):
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": CALC, "helper.py": "K = 1\n", "conftest.py": TOUCH_HELPER},
        candidates=[{"id": f"c{i}", "reference": i == 0, "files": {"calc.py": RIGHT}} for i in range(2)],
    )
    task = load_task(root)
    with _one_runner(engine, task) as pool:
        results = _results(engine, pool, task, HELPED)
    assert [[t.outcome for t in r.tests] for r in results] == [["fail"]] * 3  # half(4) == 2, not 1
    # helper.py was compiled for the candidates, and each of them imported its own rewritten text.
    assert [r.phases.get("program_compiled") for r in results] == [1.0, 2.0, 0.0]
    assert [r.phases.get("program_code_used") for r in results] == [1.0, 1.0, 1.0]


def test_hints_from_a_childs_report_are_bounded(tmp_path, programcode, monkeypatch):
    # A child's report is the program's to write: only tree-relative .py files are taken, at most
    # MAX_HINTS, and at most HINT_BUDGET bytes of them are compiled for one request.
    programcode.learn(["/etc/passwd.py", "../up.py", "a/../../up.py", "data.txt", 7, "x" * 2000 + ".py"])
    assert list(programcode._hints) == []
    programcode.learn([f"m{i}.py" for i in range(programcode.MAX_HINTS + 200)])
    assert list(programcode._hints) == [f"m{i}.py" for i in range(programcode.MAX_HINTS)]
    run = str(tmp_path / "run" / "tree")
    source = _tree(tmp_path / "src", {f"m{i}.py": f"X = '{i:04}'\n" for i in range(programcode.MAX_HINTS)})
    monkeypatch.setattr(programcode, "HINT_BUDGET", 3 * len(b"X = '0000'\n"))
    assert programcode.prepare(run, source, {}, [], [], "test_x.py") == 3
    assert programcode.prepare(run, source, {}, [], [], "test_x.py") == 3  # the next three, the first cached
    assert [key[0] for key in programcode._cache] == [f"{run}/m{i}.py" for i in range(6)]


WARNS = 'PATTERN = "\\d+"  # an invalid escape sequence: compiling this module warns\n'


def test_a_module_whose_compile_warns_is_compiled_by_each_program_under_its_filters(tmp_path, engine):
    # Under `filterwarnings = error` the warning is an import error in plain pytest: a module the
    # runner compiled (its warning shown in the runner) would let the programs after the first pass.
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": CALC, "helper.py": WARNS, "pytest.ini": "[pytest]\nfilterwarnings =\n    error\n"},
        candidates=[{"id": f"c{i}", "reference": i == 0, "files": {"calc.py": RIGHT}} for i in range(2)],
    )
    task = load_task(root)
    suite = "from calc import half\nimport helper\n\n\ndef test_half():\n    assert half(4) == 2\n"
    with _one_runner(engine, task) as pool:
        results = _results(engine, pool, task, suite)
    assert [(r.outcome, r.reason) for r in results] == [("error", "collection")] * 3
    assert all("escape" in r.message for r in results)

"""Run one suite on the initial state and the whole panel; build the `PanelReport`.

Pure of LSP: the CLI, the server and the benchmarks all come through here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import PurePosixPath

from prism_lsp.engine import reach, time_limits
from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.requests import run_request
from prism_lsp.engine.results import program_from_runner
from prism_lsp.materialize import MaterializeError, ProgramTree, TreeCache
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Candidate, Task
from prism_lsp.tasks.pytest_config import initial_config

BASELINE = "initial"
Progress = Callable[[int, int, str], None]
OnResult = Callable[[str, ProgramTree, "tuple[str, str] | None", ProgramResult], None]


# Files that, once changed, let a program decide its own verdict (a conftest hook can
# declare every test passed): refused in candidates, however honest the rest of the change.
_TEST_SETUP_NAMES = {"pytest.ini", ".pytest.ini", "sitecustomize.py", "usercustomize.py"}


def _changed_test_setup(tree: ProgramTree, suite: Suite) -> str | None:
    """The first file the candidate changed that configures the suite's pytest run, else None."""
    suite_dirs = {str(parent) for parent in PurePosixPath(suite.rel_path).parents}
    for rel in sorted(rel for rel, lines in tree.changed.items() if lines):  # an unchanged copy is fine
        path = PurePosixPath(rel)
        if path.name in _TEST_SETUP_NAMES or path.suffix == ".pth":
            return rel
        if path.name == "conftest.py" and str(path.parent) in suite_dirs:
            return rel
    return None


def run_programs(
    task: Task,
    suite: Suite,
    pool: RunnerPool,
    cache: TreeCache,
    *,
    timeout_s: float | None = None,
    tests: list[str] | None = None,
    only: frozenset[str] | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    on_result: OnResult | None = None,
    select: bool = False,
) -> PanelRun:
    """Run `suite` on the initial state and every candidate, in parallel on `pool`.

    A candidate whose tree cannot be built gets an `error` outcome naming why;
    the others still run. `progress(done, total, program_id)` is called as
    programs finish; setting `cancel` stops programs that have not started;
    `on_result(program_id, tree, config, result)` as each program's result is in (a
    confirmation starts while the rest of the panel runs). With `only`, the programs not in it do
    not run: their trees are built, their results an empty `pass` (whoever asked has them). With
    `select` and `tests`, a candidate whose change those tests do not reach on the initial program
    is not run: the initial program's result is its own (`engine/reach.py`).
    """
    start = time.perf_counter()
    programs: list[tuple[str, Candidate | None]] = [(BASELINE, None), *[(c.id, c) for c in task.candidates]]
    futures: dict[str, Future] = {}
    ready: dict[str, ProgramResult] = {}
    trees: dict[str, ProgramTree] = {}
    config = None
    floor = timeout_s or task.timeout_s
    limit_key = (suite.rel_path, tuple(tests or ()))
    first = time_limits.first_limit(pool.reference_seconds, limit_key, floor)
    limits: dict[str, float] = {}
    for program, cand in programs:
        try:
            tree = cache.program(task, cand)
        except MaterializeError as exc:
            ready[program] = ProgramResult.error("materialize", str(exc))
            continue
        except OSError as exc:
            ready[program] = ProgramResult.error("materialize", f"could not build the tree: {exc}")
            continue
        meddling = _changed_test_setup(tree, suite) if cand is not None else None
        if meddling is not None:
            ready[program] = ProgramResult.error(
                "test-setup",
                f"the candidate changes {meddling}, which decides how pytest runs and judges "
                "the suite; a candidate may change the program, not the tests' set-up",
            )
            continue
        if cand is None:
            config = initial_config(tree.path, suite.rel_path)
        trees[program] = tree
        if only is not None and program not in only:
            ready[program] = ProgramResult(outcome="pass")
    runs = [program for program in trees if program not in ready]
    # A selected run's candidates whose change is bounded wait for the initial program's run,
    # unless the last run of these tests reached their change (engine/reach.py).
    bounded: dict[str, reach.Bound] = {}
    if select and tests and BASELINE in runs:
        for program in runs[1:]:
            found = reach.tree_bound(trees[BASELINE], trees[program])
            if found is not None:
                bounded[program] = found
    marks = reach.tree_marks(trees[BASELINE], {rel for b in bounded.values() for rel in b.entries}) if bounded else {}
    bounds = {
        program: found
        for program, found in bounded.items()
        if not reach.reached_before(limit_key, trees[BASELINE].digest, found)
    }
    pending: dict[str, Future] = {}
    finished = threading.Condition()
    order: list[str] = []

    def on_done(name: str) -> Callable[[Future], None]:
        def cb(_f: Future) -> None:
            with finished:
                order.append(name)
                finished.notify()

        return cb

    def submit(name: str) -> None:
        limits[name] = first
        request = run_request(trees[name], suite, task, first, tests, config)
        futures[name] = pending[name] = pool.submit(
            replace(request, marks=marks) if name == BASELINE else request, cancel
        )
        futures[name].add_done_callback(on_done(name))

    for program in runs:
        if program not in bounds:
            submit(program)
    total = len(programs)
    done = len(ready)
    if progress and done:
        progress(done, total, "")

    def finish(name: str) -> None:
        nonlocal done
        if on_result is not None:
            on_result(name, trees[name], config, ready[name])
        done += 1
        if progress:
            progress(done, total, name)

    seen = 0
    while seen < len(pending):
        with finished:
            while len(order) <= seen:
                finished.wait(0.5)
            name = order[seen]
        seen += 1
        ready[name] = program_from_runner(futures[name].result())
        if name == BASELINE and marks:
            initial = ready[name]
            reach.remember(limit_key, trees[BASELINE].digest, initial)
            ready[name] = reach.unmarked(initial)
            for program, found in bounds.items():
                if reach.reusable(initial) and not reach.reaches(initial, found):
                    ready[program] = reach.reused(ready[name], found)
                    finish(program)
                else:
                    submit(program)
        finish(name)
    reference = next((c.id for c in task.candidates if c.reference), None)
    time_limits.settle(
        ready,
        limits,
        reference if reference in futures else None,  # a reference left out or reused was not measured
        floor,
        pool.reference_seconds,
        limit_key,
        lambda name, limit: pool.submit(run_request(trees[name], suite, task, limit, tests, config), cancel),
        program_from_runner,
    )
    results = [(c, ready[c.id]) for c in task.candidates]
    return PanelRun(ready[BASELINE], results, trees, (time.perf_counter() - start) * 1000)

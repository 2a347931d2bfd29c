"""Confirm failures before they become findings, and merge `--repeat` runs (see `stability`).

A confirmation reruns only the failing tests of valid candidates, on those programs, under the
next hash seed; the runs of a repeat are whole panel runs under consecutive seeds. Either way
the first run's results stand as the report's; what differed becomes `PanelRun.unstable`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace

from prism_lsp.engine.panel import BASELINE
from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.requests import run_request
from prism_lsp.engine.results import program_from_runner
from prism_lsp.judge.stability import HASH_ORDER, OTHER, Instability, differing, outcomes, to_confirm
from prism_lsp.materialize import ProgramTree
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task
from prism_lsp.tasks.pytest_config import initial_config

PoolFor = Callable[[int], RunnerPool]  # hash seed -> a warm pool whose runners started with it
# A panel with more valid candidates failing than this is confirmed on the first ones only: the
# rest keep their first verdict (a cap on what one edit may cost).
MAX_CONFIRMED = 64


def rerun(
    task: Task,
    suite: Suite,
    run: PanelRun,
    pool: RunnerPool,
    todo: dict[str, list[str]],
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, ProgramResult]:
    """Program -> its result on just the named tests, on `pool` (programs without a tree are left out)."""
    base = run.trees.get(BASELINE)
    config = initial_config(base.path, suite.rel_path) if base is not None else None
    futures = {
        program: pool.submit(run_request(run.trees[program], suite, task, timeout_s, tests, config), cancel)
        for program, tests in todo.items()
        if program in run.trees
    }
    return {program: program_from_runner(f.result()) for program, f in futures.items()}


def _def_lines(run: PanelRun) -> dict[str, int]:
    return {t.name: t.def_line for r in [run.baseline, *[r for _, r in run.results]] for t in r.tests if t.def_line}


def _classify(
    task: Task,
    suite: Suite,
    run: PanelRun,
    pool_for: PoolFor,
    seen: dict[tuple[str, str], list],
    first_seed: int,
    timeout_s: float | None,
    cancel,
) -> tuple[list[Instability], int]:
    """One `Instability` per test that differed (at the first program it differed on), its cause
    found by running it once more under the first seed."""
    chosen: dict[str, tuple[str, list]] = {}
    for (program, test), history in seen.items():
        chosen.setdefault(test, (program, history))
    todo: dict[str, list[str]] = {}
    for test, (program, _) in chosen.items():
        todo.setdefault(program, []).append(test)
    again = rerun(task, suite, run, pool_for(first_seed), todo, timeout_s, cancel)
    lines = _def_lines(run)
    found = []
    for test, (program, history) in chosen.items():
        third = outcomes(again.get(program, ProgramResult("error"))).get(test)
        cause = HASH_ORDER if third == history[0][1] else OTHER
        seen_all = tuple(history) + ((first_seed, third),) if third is not None else tuple(history)
        found.append(Instability(test, program, seen_all, cause, lines.get(test)))
    return sorted(found, key=lambda i: (i.def_line or 0, i.test)), sum(len(v) for v in todo.values())


def _programs(run: PanelRun) -> dict[str, ProgramResult]:
    return {BASELINE: run.baseline, **{c.id: r for c, r in run.results}}


class Confirmer:
    """Confirms a valid candidate's failing tests under `seed + 1`, each rerun started as soon as
    that candidate's result is in (an `OnResult` of `run_programs`), so it overlaps the panel."""

    def __init__(
        self,
        task: Task,
        suite: Suite,
        pool_for: PoolFor,
        seed: int,
        *,
        timeout_s: float | None = None,
        cancel: threading.Event | None = None,
    ):
        self.task, self.suite, self.pool_for, self.seed = task, suite, pool_for, seed
        self.timeout_s, self.cancel = timeout_s, cancel
        self.valid = {c.id for c in task.candidates if c.valid}
        self.todo: dict[str, list[str]] = {}
        self.futures: dict[str, Future] = {}

    def __call__(self, program: str, tree: ProgramTree, config: tuple[str, str] | None, result: ProgramResult) -> None:
        if program not in self.valid or len(self.todo) >= MAX_CONFIRMED:
            return
        failing = to_confirm({program: (True, result)}, set()).get(program)
        if failing:
            self.todo[program] = failing
            request = run_request(tree, self.suite, self.task, self.timeout_s, failing, config)
            self.futures[program] = self.pool_for(self.seed + 1).submit(request, self.cancel)

    def finish(self, run: PanelRun) -> PanelRun:
        """`run` with what the reruns found: unstable tests, and what the confirming cost."""
        if not self.futures:
            return run
        again = {program: program_from_runner(f.result()) for program, f in self.futures.items()}
        firsts = _programs(run)
        seed = self.seed
        seen = {
            (program, test): [(seed, before), (seed + 1, after)]
            for program, result in again.items()
            for test, before, after in differing(firsts[program], result)
        }
        reruns = sum(len(v) for v in self.todo.values())
        if not seen or (self.cancel and self.cancel.is_set()):
            return replace(run, reruns=reruns, confirmed_with=(seed + 1,))
        unstable, more = _classify(self.task, self.suite, run, self.pool_for, seen, seed, self.timeout_s, self.cancel)
        return replace(run, unstable=tuple(unstable), reruns=reruns + more, confirmed_with=(seed + 1,))


def merge_repeats(
    task: Task,
    suite: Suite,
    runs: list[tuple[int, PanelRun]],
    pool_for: PoolFor,
    *,
    timeout_s: float | None = None,
    cancel: threading.Event | None = None,
) -> PanelRun:
    """The first run, with every test that had two outcomes on a program across the seeds unstable."""
    first_seed, first = runs[0]
    seen: dict[tuple[str, str], list] = {}
    for program, result in _programs(first).items():
        history = {name: [(first_seed, o)] for name, o in outcomes(result).items()}
        for seed, other in runs[1:]:
            for name, o in outcomes(_programs(other).get(program, ProgramResult("error"))).items():
                if name in history:
                    history[name].append((seed, o))
        for name, h in history.items():
            if len({o for _, o in h}) > 1:
                seen[(program, name)] = h
    elapsed = sum(r.elapsed_ms for _, r in runs)
    merged = replace(first, seeds=tuple(s for s, _ in runs), elapsed_ms=elapsed)
    if not seen:
        return merged
    unstable, more = _classify(task, suite, first, pool_for, seen, first_seed, timeout_s, cancel)
    return replace(merged, unstable=tuple(unstable), reruns=more)

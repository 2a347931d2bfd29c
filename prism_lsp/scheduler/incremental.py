"""Rerun only the tests whose text (or the suite's shared code, or the run's context) changed.

For every program (the initial state and each candidate) a test's last result is
kept under (tree digest, test key), in memory and, with a disk store, under Prism's
cache folder for other processes. A new buffer is run only for the tests some program
has no result for, and only on the programs missing one; the rest are merged back from the
cache with :func:`prism_lsp.engine.results.merge_results`, so the merged `PanelRun` equals
a fresh run of the whole suite (for tests that do not depend on each other).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Protocol

from prism_lsp.analysis.suite_map import SuiteMap, test_for_name
from prism_lsp.engine.panel import BASELINE, PanelRun, Progress, Suite
from prism_lsp.engine.results import merge_results
from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.materialize import MaterializeError, ProgramTree
from prism_lsp.model.outcome import ProgramResult, TestResult
from prism_lsp.model.task import Task
from prism_lsp.sandbox.base import SandboxUnavailable
from prism_lsp.scheduler.result_cache import ResultCache, shift_lines, test_key
from prism_lsp.scheduler.run_context import backend_of, run_context


class PanelRunner(Protocol):
    """What the incremental scheduler needs from the engine (:class:`SessionPanelRunner` over an `EngineSession`)."""

    def run(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions,
        *,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> PanelRun: ...

    def trees(self, task: Task) -> dict[str, ProgramTree | ProgramResult]:
        """Program id -> its built tree, or the `error` result when it cannot be built."""
        ...

    def backend(self, task: Task, options: RunOptions) -> str | None:
        """The backend the last run of `task` with `options` used (None: unknown; starts nothing)."""
        ...


class SessionPanelRunner:
    """The `PanelRunner` over an `EngineSession` (its warm runners and its tree cache)."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session

    def run(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions,
        *,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> PanelRun:
        return self.session.run(task, suite, options, progress=progress, cancel=cancel)

    def trees(self, task: Task) -> dict[str, ProgramTree | ProgramResult]:
        out: dict[str, ProgramTree | ProgramResult] = {}
        for pid, cand in [(BASELINE, None), *[(c.id, c) for c in task.candidates]]:
            try:
                out[pid] = self.session.cache.program(task, cand)
            except (MaterializeError, OSError) as exc:
                out[pid] = ProgramResult.error("materialize", str(exc))
        return out

    def backend(self, task: Task, options: RunOptions) -> str | None:
        return self.session.resolved_backend(task, options.sandbox)


@dataclass(frozen=True)
class RunStats:
    """How a panel run was served: tests run fresh, tests taken from the cache; programs sent to
    a runner, programs whose every test came from the cache."""

    tests_run: int
    tests_cached: int
    engine_called: bool
    programs_run: int = 0
    programs_cached: int = 0
    # Of those run, candidates given the initial program's result: no test run reaches their change.
    programs_reused: int = 0


class IncrementalRunner:
    """Runs a suite on the panel through `engine`, reusing cached per-test results; `enabled=False` reuses nothing."""

    def __init__(self, engine: PanelRunner, cache: ResultCache | None = None, *, enabled: bool = True) -> None:
        self.engine = engine
        self.cache = cache if cache is not None else ResultCache()
        self.enabled = enabled

    def run(
        self,
        task: Task,
        suite: Suite,
        suite_map: SuiteMap,
        options: RunOptions = RunOptions(),
        *,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[PanelRun, RunStats]:
        names = [t.name for t in suite_map.tests]
        if not self.enabled or suite_map.syntax_errors or not names or len(set(names)) != len(names):
            run = self.engine.run(task, suite, options, progress=progress, cancel=cancel)
            return run, RunStats(len(names), 0, True, 1 + len(task.candidates), 0)
        start = time.perf_counter()
        trees = self.engine.trees(task)
        initial = trees.get(BASELINE)
        try:
            backend = backend_of(task, options)
        except SandboxUnavailable:
            backend = None  # the run says why
        on_disk = self.cache.disk is not None and isinstance(initial, ProgramTree) and backend is not None
        context = (
            run_context(task, suite.rel_path, suite.text, options, initial.digest)
            if on_disk and isinstance(initial, ProgramTree)
            else repr((suite.rel_path, options.timeout_s, options.sandbox, task.test_command))
        )
        starts = {t.name: t.span.start_line for t in suite_map.tests}
        # The name too: tests a mixin's method gives several classes share its text, not their results.
        keys = {t.name: test_key(t.body_hash, suite_map.shared_hash, context, t.name) for t in suite_map.tests}
        cached: dict[str, dict[str, tuple[TestResult, ...]]] = {}
        missing: dict[str, set[str]] = {}
        for program, tree in trees.items():
            if isinstance(tree, ProgramTree):
                if on_disk and any(self.cache.get(tree.digest, k) is None for k in keys.values()):
                    self.cache.load(tree.digest, context)
                missing[program] = set()
                cached[program] = self._lookup(tree.digest, keys, starts, missing[program])
        needed = set().union(*missing.values()) if missing else set(names)
        to_run = {p for p, tree in trees.items() if not isinstance(tree, ProgramTree) or missing.get(p)}
        fresh: PanelRun | None = None
        if needed:
            # `options.tests`: the caller asked for these tests alone (one Test Explorer item), never all.
            every = len(needed) == len(names) and options.tests is None
            subset = None if every else tuple(n for n in names if n in needed)
            only = None if len(to_run) == len(trees) else frozenset(to_run)
            fresh = self.engine.run(
                task, suite, replace(options, tests=subset, programs=only), progress=progress, cancel=cancel
            )
            if not (cancel and cancel.is_set()):
                self._store(fresh, trees, keys, needed, suite_map, starts)
                # A run that ended up on another backend than planned (Docker unusable) stays in memory.
                if on_disk and self.engine.backend(task, options) == backend:
                    for program in to_run:
                        tree = trees[program]
                        if isinstance(tree, ProgramTree):
                            self.cache.save(tree.digest, context, {keys[n]: starts[n] for n in names})
        elif progress:
            progress(len(trees), len(trees), "")
        seeds = tuple(range(options.hash_seed, options.hash_seed + options.repeat))
        run = self._assemble(task, trees, cached, needed, fresh, start, to_run, seeds)
        built = [p for p, tree in trees.items() if isinstance(tree, ProgramTree)]
        ran = sum(1 for p in built if p in to_run) if fresh is not None else 0
        reused = sum(1 for _, r in fresh.results if r.reused) if fresh is not None else 0
        return run, RunStats(len(needed), len(names) - len(needed), fresh is not None, ran, len(built) - ran, reused)

    def _lookup(
        self, digest: str, keys: dict[str, str], starts: dict[str, int], needed: set[str]
    ) -> dict[str, tuple[TestResult, ...]]:
        found = {}
        for name, key in keys.items():
            hit = self.cache.get_at(digest, key, starts[name])
            # An entry is a test's results: a parametrized test's cases, each named after it.
            if hit is None or any(t.name.split("[", 1)[0] != name for t in hit):
                needed.add(name)
            else:
                found[name] = hit
        return found

    def _store(
        self,
        fresh: PanelRun,
        trees: dict[str, ProgramTree | ProgramResult],
        keys: dict[str, str],
        needed: set[str],
        suite_map: SuiteMap,
        starts: dict[str, int],
    ) -> None:
        by_program = {BASELINE: fresh.baseline, **{c.id: r for c, r in fresh.results}}
        for program, result in by_program.items():
            tree = trees.get(program)
            if not isinstance(tree, ProgramTree) or not result.tests or result.reason == "cancelled":
                continue
            groups: dict[str, list[TestResult]] = {}
            for t in result.tests:
                info = test_for_name(suite_map, t.name)
                if info is None:  # a test the map does not know (imported?): cache nothing for this suite
                    return
                groups.setdefault(info.name, []).append(t)
            shaky = {i.test.split("[", 1)[0] for i in fresh.unstable}
            for name in needed:
                if name in groups and name not in shaky:
                    # lines are kept relative to the test's first line: the test may move, unchanged
                    self.cache.put(tree.digest, keys[name], tuple(shift_lines(t, -starts[name]) for t in groups[name]))

    @staticmethod
    def _assemble(
        task: Task,
        trees: dict[str, ProgramTree | ProgramResult],
        cached: dict[str, dict[str, tuple[TestResult, ...]]],
        needed: set[str],
        fresh: PanelRun | None,
        start: float,
        ran: set[str],
        seeds: tuple[int, ...],
    ) -> PanelRun:
        fresh_by = {BASELINE: fresh.baseline, **{c.id: r for c, r in fresh.results}} if fresh else {}

        def program(pid: str) -> ProgramResult:
            tree = trees.get(pid)
            if isinstance(tree, ProgramResult):
                return fresh_by.get(pid, tree)
            run_now = fresh is not None and pid in ran
            kept = [
                t for name, entry in cached.get(pid, {}).items() if not run_now or name not in needed for t in entry
            ]
            base = fresh_by.get(pid, ProgramResult(outcome="pass")) if run_now else ProgramResult(outcome="pass")
            merged = merge_results({t.name: t for t in kept}, base, [t.name for t in kept])
            return (
                merged
                if run_now
                else ProgramResult(
                    merged.outcome, merged.tests, merged.reason, merged.message, merged.line, 0.0, cached=True
                )
            )

        real_trees = {pid: t for pid, t in trees.items() if isinstance(t, ProgramTree)}
        # Unstable tests are never cached (`_store`): each run that needs them finds them again.
        return PanelRun(
            program(BASELINE),
            [(c, program(c.id)) for c in task.candidates],
            real_trees,
            (time.perf_counter() - start) * 1000,
            unstable=fresh.unstable if fresh else (),
            seeds=fresh.seeds if fresh else seeds,
            confirmed_with=fresh.confirmed_with if fresh else (),
            reruns=fresh.reruns if fresh else 0,
            trusted_lines=fresh.trusted_lines if fresh else None,
        )

"""Run one suite on the initial state and the whole panel; build the `PanelReport`.

Pure of LSP: the CLI, the server and the benchmarks all come through here.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import PurePosixPath
from typing import Any

from prism_lsp.engine import time_limits
from prism_lsp.engine.change_coverage import entry_specs
from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.results import program_from_runner, program_out
from prism_lsp.judge.detection import detection
from prism_lsp.judge.findings import Finding, build_findings
from prism_lsp.judge.metrics import Verdict, task_metrics
from prism_lsp.judge.redact import redact_run
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT, anonymous_ids
from prism_lsp.judge.stability import settled
from prism_lsp.materialize import MaterializeError, ProgramTree, TreeCache
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.report import CandidateOut, FindingOut, Metrics, PanelCounts, PanelReport
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Candidate, Task
from prism_lsp.runner._prism_protocol import RunRequest
from prism_lsp.tasks.pytest_config import initial_config

BASELINE = "initial"
_VERDICT = {"pass": "accepted", "fail": "rejected"}  # a program's outcome as a verdict; else none
Progress = Callable[[int, int, str], None]
OnResult = Callable[[str, ProgramTree, "tuple[str, str] | None", ProgramResult], None]


def run_request(
    tree: ProgramTree,
    suite: Suite,
    task: Task,
    timeout_s: float | None = None,
    tests: list[str] | None = None,
    config: tuple[str, str] | None = None,
) -> RunRequest:
    """The request for one program. Its id is random, never the candidate's: what runs in the
    sandbox must not learn which candidate it is (the panel is the answer key). `config` is
    the initial state's pytest configuration (`pytest_config.initial_config`)."""
    return RunRequest(
        id=secrets.token_hex(8),
        tree=str(tree.path),
        suite_rel=suite.rel_path,
        suite_text=suite.text,
        changed={k: sorted(v) for k, v in tree.changed.items()},
        timeout_s=timeout_s or task.timeout_s,
        memory_mb=task.memory_mb,
        tests=tests,
        command=task.test_command,
        config_rel=config[0] if config else None,
        config_text=config[1] if config else None,
        pythonpath=list(task.pythonpath),
        entry=entry_specs(task, suite.text),
    )


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
) -> PanelRun:
    """Run `suite` on the initial state and every candidate, in parallel on `pool`.

    A candidate whose tree cannot be built gets an `error` outcome naming why;
    the others still run. `progress(done, total, program_id)` is called as
    programs finish; setting `cancel` stops programs that have not started;
    `on_result(program_id, tree, config, result)` as each program's result is in (a
    confirmation starts while the rest of the panel runs). With `only`, the programs not in it do
    not run: their trees are built, their results an empty `pass` (whoever asked has them).
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
            continue
        limits[program] = first
        futures[program] = pool.submit(run_request(tree, suite, task, first, tests, config), cancel)
    total = len(programs)
    done = len(ready)
    if progress and done:
        progress(done, total, "")
    pending = dict(futures)
    finished = threading.Condition()
    order: list[str] = []

    def on_done(name: str) -> Callable[[Future], None]:
        def cb(_f: Future) -> None:
            with finished:
                order.append(name)
                finished.notify()

        return cb

    for name, fut in pending.items():
        fut.add_done_callback(on_done(name))
    seen = 0
    while seen < len(pending):
        with finished:
            while len(order) <= seen:
                finished.wait(0.5)
            name = order[seen]
        seen += 1
        ready[name] = program_from_runner(futures[name].result())
        if on_result is not None:
            on_result(name, trees[name], config, ready[name])
        done += 1
        if progress:
            progress(done, total, name)
    reference = next((c.id for c in task.candidates if c.reference), None)
    time_limits.settle(
        ready,
        limits,
        reference if reference in futures else None,  # a reference left out was not measured
        floor,
        pool.reference_seconds,
        limit_key,
        lambda name, limit: pool.submit(run_request(trees[name], suite, task, limit, tests, config), cancel),
        program_from_runner,
    )
    results = [(c, ready[c.id]) for c in task.candidates]
    return PanelRun(ready[BASELINE], results, trees, (time.perf_counter() - start) * 1000)


def build_report(task: Task, suite: Suite, run: PanelRun, **options: Any) -> PanelReport:
    """The report of DESIGN.md for one run, with messages at the given reveal level (`judge_run`'s,
    which takes the same options)."""
    return judge_run(task, suite, run, **options)[1]


def judge_run(
    task: Task,
    suite: Suite,
    run: PanelRun,
    *,
    reveal: str = "full",
    extra_findings: list[Finding] | None = None,
    sandbox: str = "",
    warnings: list[str] | None = None,
) -> tuple[PanelRun, PanelReport]:
    """The run as the author may see it (redacted once, here) and the report of DESIGN.md built
    from it, with messages at the given reveal level.

    Below `full` the candidates' results are first reduced to what the level promises
    (:mod:`prism_lsp.judge.redact`); at `counts` the report lists no candidate and no finding
    of a candidate's run, only `panel`'s numbers; at `sealed` not even those (nor any metric
    but `detects_baseline`)."""
    from prism_lsp.engine.change_coverage import coverage_fields

    # What the metrics may credit, from the raw run (redaction renames parametrized cases): a
    # verdict resting on an unstable test is neither an acceptance nor a rejection.
    shaky = {i.test for i in run.unstable}
    base_outcome = settled(run.baseline, shaky)
    effective = {c.id: settled(r, shaky) for c, r in run.results}
    coverage = coverage_fields(task, suite, run, reveal)
    run = redact_run(run, reveal, suite.text)
    verdicts = [Verdict(c.id, c.valid, c.reference, effective[c.id]) for c, r in run.results]
    metrics = task_metrics(base_outcome, verdicts, run.baseline.reason)
    if reveal not in PANEL_SHOWN_AT:  # sealed: nothing that depends on the panel
        metrics = {key: (value if key == "detects_baseline" else None) for key, value in metrics.items()}
    # Below `labels` no finding comes from a candidate's run (it would say where): the baseline's only.
    per_line = run.results if reveal in LINES_SHOWN_AT else []
    unstable = run.unstable if reveal in LINES_SHOWN_AT else tuple(i for i in run.unstable if i.program == "initial")
    with_values = reveal == "full"
    reference = next((r for c, r in run.results if c.reference and effective[c.id] == r.outcome), None)
    # A hang detects only when the reference passes steadily; an unstable failure detects nothing.
    why = detection(run.baseline, reference, with_values) if base_outcome != "unstable" else ""
    findings = build_findings(
        run.baseline,
        per_line,
        reveal,
        suite.text,
        baseline_detects=bool(why),
        unstable=unstable,
        unsettled={c.id for c, _ in run.results if effective[c.id] == "unstable"},
    )
    findings += list(extra_findings or [])
    names = anonymous_ids([c for c, _ in run.results], reveal)
    candidates = []
    for c, r in per_line:
        verdict = _VERDICT.get(effective[c.id])
        correct = verdict == ("accepted" if c.valid else "rejected")
        out = program_out(r, with_values).model_dump()
        candidates.append(
            CandidateOut(
                **out,
                id=names[c.id],
                label=c.label,
                reference=c.reference and with_values,
                verdict=verdict,
                correct=correct,
                note=c.note if with_values else "",
                unstable=effective[c.id] == "unstable",
            )
        )
    return run, PanelReport(
        task=task.id,
        suite=suite.rel_path,
        baseline=program_out(run.baseline, True),
        candidates=candidates,
        metrics=Metrics(**metrics),
        findings=[
            FindingOut(
                kind=f.kind,
                line=f.line,
                end_line=f.end_line,
                candidates=f.candidates if reveal == "full" else [],
                message=f.message,
                tests=f.tests,
                rule=f.rule,
                count=f.count,
            ).about_candidates(f.about)
            for f in findings
        ],
        timing_ms={"total": round(run.elapsed_ms, 1)},
        sandbox=sandbox,
        warnings=list(warnings or []),
        reveal=reveal,
        panel=panel_counts(run, effective) if reveal in PANEL_SHOWN_AT else None,
        detection=why,
        seeds=list(run.seeds),
        # How many failures were confirmed counts failing tests on valid candidates, finer than the
        # whole-suite numbers `counts` promises: shown where lines are.
        confirmed_with=list(run.confirmed_with) if reveal in LINES_SHOWN_AT else [],
        reruns=run.reruns if reveal in LINES_SHOWN_AT else 0,
        **coverage,
    )


def panel_counts(run: PanelRun, effective: dict[str, str] | None = None) -> PanelCounts:
    """The panel's numbers (non-reference valid accepted, invalid rejected, errors) of one run;
    `effective` outcomes (judge/stability.py `settled`) when some verdicts rest on unstable tests."""
    outcome = {c.id: (effective or {}).get(c.id, r.outcome) for c, r in run.results}
    return PanelCounts.tally(
        (c.valid, c.reference, _VERDICT.get(outcome[c.id]), r.outcome == "error") for c, r in run.results
    )

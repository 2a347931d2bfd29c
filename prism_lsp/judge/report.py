"""From a panel run to what the author sees: the run redacted once to the reveal level, and the
report of DESIGN.md built from it (metrics, findings, candidates, the panel's counts, coverage)."""

from __future__ import annotations

from typing import Any

from prism_lsp.engine.results import program_out
from prism_lsp.judge.detection import detection
from prism_lsp.judge.findings import Finding, build_findings
from prism_lsp.judge.metrics import Verdict, task_metrics
from prism_lsp.judge.redact import redact_run
from prism_lsp.judge.reveal import LINES_SHOWN_AT, PANEL_SHOWN_AT, anonymous_ids
from prism_lsp.judge.stability import settled
from prism_lsp.model.report import CandidateOut, FindingOut, Metrics, PanelCounts, PanelReport
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Task

_VERDICT = {"pass": "accepted", "fail": "rejected"}  # a program's outcome as a verdict; else none


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
        out = program_out(r, with_values)
        candidates.append(
            CandidateOut(
                **dict(out),  # its fields as they are: the test models are taken, not validated again
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

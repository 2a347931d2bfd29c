"""Judge a suite for an agent: which tasks it may name, where its suite runs, and the answer.

Pure of MCP: `app` turns these functions into tools. What an agent sends is untrusted: a
task must lie under one of the roots the server was started with, a suite file under its
task, and the reveal level is the strictest of the server's and the task's own. With a run
budget (`--budget`), each run spends one run of the task's budget first (:mod:`budget`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, Field

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.findings import TEACH_UNREACHED
from prism_lsp.judge.reveal import PANEL_SHOWN_AT, WITNESSES_SHOWN_AT, strictest
from prism_lsp.judge.weak_findings import weak_assertion_findings
from prism_lsp.mcp_server.budget import BudgetSpent, RunBudget
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.report import CoverageOut, Metrics, PanelReport, WitnessOut
from prism_lsp.model.reveal import RevealLevel
from prism_lsp.model.run import Suite
from prism_lsp.model.task import Task
from prism_lsp.tasks import load_task
from prism_lsp.witness.report import report_with_witnesses

MAX_SUITE_BYTES = 1 << 20  # an agent's suite is a test file, not a data dump


class ToolError(Exception):
    """A tool call that cannot be served; its message goes back to the agent as the tool's error."""


@dataclass(frozen=True)
class JudgeConfig:
    """What whoever started the server decided: trusted, fixed for the server's life."""

    roots: tuple[Path, ...]
    reveal: RevealLevel = "sealed"  # agents under evaluation learn nothing of the panel while they write
    sandbox: str | None = None
    timeout_s: float | None = None
    cache_dir: Path | None = None
    workers: int | None = None
    extra: dict = field(default_factory=dict)
    budget: RunBudget | None = None  # runs per task, kept across restarts (None: unlimited)


class OverSpecification(BaseModel):
    """A line that rejected valid candidates: assert less there."""

    line: int
    end_line: int
    valid_rejected: int
    message: str
    tests: list[str] = Field(default_factory=list)


class UnderAssertion(BaseModel):
    """Invalid candidates the suite let through: `reached` says whether a test ran their changed code
    (True: strengthen the check at `line`; False: add an input that reaches it; None: unknown)."""

    line: int
    invalid_accepted: int
    reached: bool | None
    message: str
    tests: list[str] = Field(default_factory=list)
    witness: WitnessOut | None = None  # an input that tells them apart (reveal full/labels only)


class OtherFinding(BaseModel):
    kind: Literal["misses-baseline", "execution-error", "weak-assertion", "unstable"]
    line: int
    end_line: int
    message: str


class SuiteJudgement(BaseModel):
    """What `run_suite` answers: metrics, and the two kinds of signal kept apart.

    At reveal `counts` only whole-suite numbers (no line, test or assertion of a candidate's run:
    the two lists are empty); at `sealed` only the initial program's outcome and the static hints
    (every panel number None)."""

    task: str
    suite: str
    reveal: RevealLevel
    initial_outcome: Literal["pass", "fail", "error"]  # the suite on the initial program (fail = detects the bug)
    metrics: Metrics  # detects_baseline, rar, jsf, valid_acceptance, invalid_rejection, h (DESIGN.md)
    valid_accepted: int | None
    valid_total: int | None
    invalid_rejected: int | None
    invalid_total: int | None
    over_specification: list[OverSpecification]
    under_assertion: list[UnderAssertion]
    other_findings: list[OtherFinding]
    runs_left: int | None = None  # of this task's run budget (None: no budget)
    # The paper's ΔC and entry coverage on the reference (as the report gives them at this level;
    # per-test numbers only at `full`); None at `sealed`.
    change_coverage: CoverageOut | None = None
    entry_coverage: CoverageOut | None = None


class TaskInfo(BaseModel):
    task: str
    path: str
    statement: str
    valid: int | None  # the panel's size; None at `sealed`
    invalid: int | None
    reveal: RevealLevel
    runs_left: int | None = None


def _inside(path: Path, base: Path) -> bool:
    try:
        path.relative_to(base)
    except ValueError:
        return False
    return True


def resolve_task(config: JudgeConfig, task: str) -> Task:
    """The task an agent named (a folder holding prism.toml, absolute or relative to the first root).

    Raises `ToolError` for a folder outside the roots or without a manifest; `ManifestError`
    (a clear message) for a broken one.
    """
    if not task or "\0" in task:
        raise ToolError("name a task folder")
    path = Path(task)
    path = (path if path.is_absolute() else config.roots[0] / path).resolve()
    if not any(_inside(path, root) for root in config.roots):
        raise ToolError(f"task {task!r} is outside the folders this server judges")
    if not (path / "prism.toml").is_file():
        raise ToolError(f"no prism.toml in {task!r}")
    return load_task(path)


def resolve_suite(task: Task, suite_path: str | None, suite_text: str | None, suite_rel: str | None) -> Suite:
    """The suite to judge: a file under the task (path), or text to run at `suite_rel`.

    Raises `ToolError` when neither or both are given, a path leaves the task, or the text is too large.
    """
    if (suite_path is None) == (suite_text is None):
        raise ToolError("give either suite_path (a file under the task) or suite_text with suite_rel")
    if suite_text is not None:
        rel = PurePosixPath(suite_rel or "tests/test_agent.py")
        if rel.is_absolute() or ".." in rel.parts or not rel.name.endswith(".py"):
            raise ToolError(f"suite_rel {suite_rel!r} must be a relative path to a .py file inside the program tree")
        if len(suite_text.encode("utf-8", "surrogatepass")) > MAX_SUITE_BYTES:
            raise ToolError(f"suite_text is larger than {MAX_SUITE_BYTES >> 10} KiB")
        return Suite(rel.as_posix(), suite_text)
    assert suite_path is not None  # exactly one of the two, checked above
    path = Path(suite_path)
    path = (path if path.is_absolute() else task.root / path).resolve()
    if not _inside(path, task.root.resolve()):
        raise ToolError(f"suite {suite_path!r} is outside the task folder")
    if not path.is_file():
        raise ToolError(f"suite {suite_path!r} does not exist")
    if path.stat().st_size > MAX_SUITE_BYTES:
        raise ToolError(f"suite {suite_path!r} is larger than {MAX_SUITE_BYTES >> 10} KiB")
    return Suite(task.suite_rel(path), path.read_text(encoding="utf-8"))


def judgement(report: PanelReport, reveal: str, runs_left: int | None = None) -> SuiteJudgement:
    """The report as an agent reads it (already at `reveal`: nothing here adds detail)."""
    counts = report.panel_counts() if reveal in PANEL_SHOWN_AT else (None, None, None, None)
    va, vt, ir, it = counts
    over, under, other = [], [], []
    tests_ok = reveal == "full"  # test names come out of candidate runs too (generated ids)
    for f in report.findings:
        tests = f.tests if tests_ok else []
        if f.kind == "rejects-valid":
            over.append(
                OverSpecification(
                    line=f.line, end_line=f.end_line, valid_rejected=f.count or 0, message=f.message, tests=tests
                )
            )
        elif f.kind == "accepts-invalid":
            # A finding on a test that reached the change names that test; the others say why not.
            reached = True if f.tests else (False if TEACH_UNREACHED in f.message else None)
            under.append(
                UnderAssertion(
                    line=f.line,
                    invalid_accepted=f.count or 0,
                    reached=reached,
                    message=f.message,
                    tests=tests,
                    witness=f.witness,
                )
            )
        else:
            other.append(OtherFinding(kind=f.kind, line=f.line, end_line=f.end_line, message=f.message))
    return SuiteJudgement(
        task=report.task,
        suite=report.suite,
        reveal=reveal,
        initial_outcome=report.baseline.outcome,
        metrics=report.metrics,
        runs_left=runs_left,
        valid_accepted=va,
        valid_total=vt,
        invalid_rejected=ir,
        invalid_total=it,
        over_specification=over,
        under_assertion=under,
        other_findings=other,
        change_coverage=_coverage(report.change_coverage, tests_ok),
        entry_coverage=_coverage(report.entry_coverage, tests_ok),
    )


def _coverage(measure: CoverageOut | None, tests_ok: bool) -> CoverageOut | None:
    return measure if measure is None or tests_ok else measure.model_copy(update={"tests": {}})


def run_suite(
    session: EngineSession,
    config: JudgeConfig,
    task_name: str,
    *,
    suite_path: str | None = None,
    suite_text: str | None = None,
    suite_rel: str | None = None,
) -> SuiteJudgement:
    """Run a suite on the task's initial program and panel; the answer at the server's reveal level."""
    task = resolve_task(config, task_name)
    suite = resolve_suite(task, suite_path, suite_text, suite_rel)
    reveal = strictest(config.reveal, task.reveal)
    runs_left = spend(config, task)
    options = RunOptions(sandbox=config.sandbox, timeout_s=config.timeout_s, reveal=reveal)
    _, report = report_with_witnesses(session, task, suite, options, weak_assertion_findings(suite.text))
    return judgement(report, reveal, runs_left)


def spend(config: JudgeConfig, task: Task) -> int | None:
    """Spend one run of `task`'s budget (None without a budget); `ToolError` when it is spent."""
    if config.budget is None:
        return None
    try:
        return config.budget.spend(task)
    except BudgetSpent as exc:
        raise ToolError(str(exc)) from None


class SuggestionOut(BaseModel):
    """A verified edit of the suite: replace `range` (0-based lines and characters) with `new_text`."""

    kind: str
    line: int
    title: str
    new_text: str
    range: dict
    verified: dict
    diff: str


class Suggestions(BaseModel):
    task: str
    suite: str
    reveal: RevealLevel
    suggestions: list[SuggestionOut]
    note: str = ""


def list_suggestions(
    session: EngineSession,
    config: JudgeConfig,
    task_name: str,
    *,
    suite_path: str | None = None,
    suite_text: str | None = None,
    suite_rel: str | None = None,
) -> Suggestions:
    """Verified edits of the suite (none at reveal `counts` or `sealed`: there the panel is an answer key)."""
    task = resolve_task(config, task_name)
    suite = resolve_suite(task, suite_path, suite_text, suite_rel)
    reveal = strictest(config.reveal, task.reveal)
    if reveal not in WITNESSES_SHOWN_AT:
        return Suggestions(
            task=task.id,
            suite=suite.rel_path,
            reveal=reveal,
            suggestions=[],
            note=f"reveal level `{reveal}` shows no suggestions: the panel is an answer key here",
        )
    spend(config, task)
    from prism_lsp.suggest import suggest
    from prism_lsp.suggest.data import as_data

    options = RunOptions(sandbox=config.sandbox, timeout_s=config.timeout_s, reveal=reveal)
    run = session.run(task, suite, options)
    found = suggest(session, task, suite, run, options)
    return Suggestions(
        task=task.id,
        suite=suite.rel_path,
        reveal=reveal,
        suggestions=[SuggestionOut(**as_data(s, suite, reveal)) for s in found],
        note="" if found else "no verified suggestion for this suite",
    )


def list_tasks(config: JudgeConfig) -> list[TaskInfo]:
    """The tasks under the roots (each folder holding a prism.toml, two levels deep at most)."""
    found: list[TaskInfo] = []
    for root in config.roots:
        manifests = [root / "prism.toml", *root.glob("*/prism.toml"), *root.glob("*/*/prism.toml")]
        for manifest in sorted(m for m in manifests if m.is_file()):
            try:
                task = load_task(manifest.parent)
            except (ManifestError, OSError, ValueError):  # a broken task is not listed; run_suite says why
                continue
            reveal = strictest(config.reveal, task.reveal)
            shown = reveal in PANEL_SHOWN_AT
            found.append(
                TaskInfo(
                    task=task.id,
                    path=str(task.root),
                    statement=task.statement,
                    valid=sum(c.valid for c in task.candidates) if shown else None,
                    invalid=sum(not c.valid for c in task.candidates) if shown else None,
                    reveal=reveal,
                    runs_left=config.budget.left(task) if config.budget is not None else None,
                )
            )
    return found

"""Labelling by the verifier: run the task's trusted suite on candidates through the real engine.

The verifier decides validity: a candidate it passes is valid, one it fails is invalid, and one
it cannot judge (`error`: does not import, hangs, crashes the runner) gets no label and says why.
Before it labels anything, the verifier itself is checked: it must fail on the initial program
and pass on the reference, otherwise it is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.model.task import Candidate, Task
from prism_lsp.panel.errors import VerifierError


@dataclass(frozen=True)
class Judgement:
    """The verifier's word on one candidate."""

    candidate: Candidate
    label: Literal["valid", "invalid"] | None  # None: the verifier could not judge it
    failed: tuple[str, ...] = ()  # verifier tests it failed (its failure set)
    crash_only: bool = False  # failed only by raising, never by a failed assertion
    error: str = ""  # why there is no label

    @property
    def agrees(self) -> bool:
        """Whether the verifier's label is the one the panel gives the candidate."""
        return self.label == self.candidate.label


def verifier_suite(task: Task) -> Suite:
    if task.verifier is None:
        raise VerifierError(f"{task.manifest}: no [verifier] suite; add one to label candidates")
    return Suite(task.suite_rel(task.verifier), task.verifier.read_text(encoding="utf-8"))


def _why(r: ProgramResult) -> str:
    broken = next((t for t in r.tests if t.outcome != "pass"), None)
    detail = r.message or (f"{broken.name}: {broken.message}" if broken else "")
    return f"{r.reason or r.outcome}: {detail}".rstrip(": ")


def judge(candidate: Candidate, r: ProgramResult) -> Judgement:
    if r.outcome == "pass":
        return Judgement(candidate, "valid")
    if r.outcome == "error":
        return Judgement(candidate, None, error=_why(r))
    failed = tuple(t.name for t in r.tests if t.outcome != "pass")
    crash_only = all(not any(a.outcome == "fail" for a in t.assertions) for t in r.tests if t.outcome == "fail")
    return Judgement(candidate, "invalid", failed=failed, crash_only=crash_only)


def check_verifier(task: Task, run: PanelRun) -> None:
    """Raise `VerifierError` unless the verifier fails on the initial program and passes on the reference."""
    name = f"the verifier {task.verifier_rel}" if task.verifier else "the verifier"
    if run.baseline.outcome == "pass":
        raise VerifierError(
            f"{name} passes on the initial program; a verifier must reject it "
            "(it would label a candidate that changes nothing as valid)"
        )
    if run.baseline.outcome == "error":
        raise VerifierError(f"{name} could not run on the initial program ({_why(run.baseline)})")
    ref = next(r for c, r in run.results if c.reference)
    if ref.outcome != "pass":
        raise VerifierError(f"{name} does not pass on the reference ({_why(ref)}); a verifier must accept it")


def reference_seconds(session: EngineSession, task: Task, *, sandbox: str | None = None) -> float:
    """Check the verifier on the initial program and the reference alone; the reference's run time."""
    run = session.run(
        replace(task, candidates=(task.reference,)), verifier_suite(task), RunOptions(sandbox=sandbox, reveal="full")
    )
    check_verifier(task, run)
    return run.results[0][1].duration_ms / 1000


def run_verifier(
    session: EngineSession,
    task: Task,
    candidates: list[Candidate] | None = None,
    *,
    sandbox: str | None = None,
    timeout_s: float | None = None,
) -> list[Judgement]:
    """Judge `candidates` (default: the whole panel) with the task's verifier, checked first.

    The candidates need not be in the manifest: they run as a panel of the task with its
    reference, so building, caching, sandboxing and limits are the engine's own.
    """
    suite = verifier_suite(task)
    others = [c for c in (task.candidates if candidates is None else candidates) if not c.reference]
    panel = replace(task, candidates=(task.reference, *others))
    run = session.run(panel, suite, RunOptions(sandbox=sandbox, timeout_s=timeout_s, reveal="full"))
    check_verifier(task, run)
    return [judge(c, r) for c, r in run.results if candidates is None or not c.reference]

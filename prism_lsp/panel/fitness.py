"""Is a panel fit to judge suites? The rules of `prism check` beyond "every candidate builds".

- exactly one reference, and it is valid;
- with a verifier: it fails on the initial program and passes on the reference (else an
  error naming it), every label is the verifier's, and every invalid candidate is rejected by
  at least one verifier test;
- no two candidates behave identically on the probe inputs (unfit when an invalid one is
  among them; a warning for valid ones, which may well differ only in their code);
- the valid candidates are diverse: mean pairwise AST distance reported, warned below 0.5.
Each rule is `ok`, `unfit`, `warning` or `skipped` (cannot be checked, and says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from prism_lsp.engine.session import EngineSession
from prism_lsp.materialize import MaterializeError
from prism_lsp.model.task import Task
from prism_lsp.panel.diversity import WARN_BELOW, features, mean_pairwise_distance
from prism_lsp.panel.verifier import run_verifier
from prism_lsp.panel.witnessing import probe_candidates

Status = Literal["ok", "unfit", "warning", "skipped"]


@dataclass(frozen=True)
class Rule:
    name: str
    status: Status
    detail: str = ""


def _ids(ids) -> str:
    return ", ".join(f"`{i}`" for i in ids)


def reference_rule(task: Task) -> Rule:
    refs = [c for c in task.candidates if c.reference]
    if len(refs) == 1 and refs[0].valid:
        return Rule("one valid reference", "ok", refs[0].id)
    return Rule("one valid reference", "unfit", f"found {len(refs)} references")


def verifier_rules(session: EngineSession, task: Task, sandbox: str | None) -> list[Rule]:
    """Labels re-verified; invalid ones each rejected by a verifier test (raises `VerifierError`)."""
    if task.verifier is None:
        why = "no [verifier] suite in the manifest"
        return [
            Rule("labels agree with the verifier", "skipped", why),
            Rule("each invalid candidate rejected by a verifier test", "skipped", why),
        ]
    judged = [j for j in run_verifier(session, task, sandbox=sandbox) if not j.candidate.reference]
    wrong = [
        f"`{j.candidate.id}` is labelled {j.candidate.label}, the verifier says "
        f"{j.label or 'nothing (' + j.error + ')'}"
        for j in judged
        if not j.agrees
    ]
    unrejected = [j.candidate.id for j in judged if not j.candidate.valid and not j.failed]
    return [
        Rule(
            "labels agree with the verifier",
            "unfit" if wrong else "ok",
            "; ".join(wrong) or f"{len(judged)} candidates re-verified",
        ),
        Rule(
            "each invalid candidate rejected by a verifier test",
            "unfit" if unrejected else "ok",
            f"not rejected: {_ids(unrejected)}" if unrejected else "",
        ),
    ]


def behaviour_rule(session: EngineSession, task: Task, sandbox: str | None) -> Rule:
    """Candidates with the same behaviour on every probe input.

    An invalid one that behaves like another candidate is unfit (a duplicate bug, or labels
    that contradict each other). Valid ones alike are only a warning: several valid ways to
    write the same behaviour is what a panel of implementations holds, and the AST rule
    measures how different their code is.
    """
    probing = probe_candidates(session, task, [], sandbox=sandbox)
    name = "no two candidates behave the same on the probe inputs"
    if not probing.entries or not probing.signatures:
        return Rule(name, "skipped", "no entry point with inputs found in the verifier or the task's suites")
    groups: dict[tuple, list] = {}
    for c in task.candidates:
        if c.id in probing.signatures:
            groups.setdefault(probing.signatures[c.id], []).append(c)
    same = [cs for cs in groups.values() if len(cs) > 1]
    unfit = [cs for cs in same if any(not c.valid for c in cs)]
    detail = "; ".join(
        _ids(c.id for c in cs) + " behave the same" for cs in unfit + [s for s in same if s not in unfit]
    )
    status: Status = "unfit" if unfit else "warning" if same else "ok"
    return Rule(
        name,
        status,
        detail or f"{len(probing.signatures)} programs on {probing.inputs} inputs of {', '.join(probing.entries)}",
    )


def diversity(session: EngineSession, task: Task) -> float | None:
    """Mean pairwise AST distance of the valid candidates over the Python files any of them changes."""
    trees = {}
    for c in task.candidates:
        if c.valid:
            try:
                trees[c.id] = session.cache.candidate(task, c)
            except MaterializeError:
                continue
    files = sorted({rel for t in trees.values() for rel in t.changed if rel.endswith(".py")})
    sets = []
    for tree in trees.values():
        text = "\n".join(
            (tree.path / rel).read_text(encoding="utf-8", errors="replace")
            for rel in files
            if (tree.path / rel).is_file()
        )
        sets.append(features(text))
    return mean_pairwise_distance(sets)


def diversity_rule(value: float | None) -> Rule:
    name = "valid candidates are diverse (mean pairwise AST distance)"
    if value is None:
        return Rule(name, "skipped", "fewer than two valid candidates")
    if value < WARN_BELOW:
        return Rule(name, "warning", f"{value:.2f}, below {WARN_BELOW}: the valid candidates are much alike")
    return Rule(name, "ok", f"{value:.2f}")


def panel_rules(session: EngineSession, task: Task, sandbox: str | None = None) -> tuple[list[Rule], float | None]:
    value = diversity(session, task)
    rules = [
        reference_rule(task),
        *verifier_rules(session, task, sandbox),
        behaviour_rule(session, task, sandbox),
        diversity_rule(value),
    ]
    return rules, value

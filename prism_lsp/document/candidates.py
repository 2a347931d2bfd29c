"""The panel as the `prism.listCandidates` / `prism.showCandidate` commands show it.

Reveal levels: `full` gives ids, labels, notes and the candidate's changed file;
`labels` anonymous ids (`valid-2`) with labels only; `counts` anonymous ids
(`candidate-3`) and nothing else. Showing a candidate needs `full`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prism_lsp.judge.reveal import anonymous_ids
from prism_lsp.materialize import ProgramTree
from prism_lsp.model.task import Candidate, Task


@dataclass(frozen=True)
class Target:
    """Where a candidate is shown: a file and the first changed line (0-based)."""

    uri: str
    line: int


def changed_target(tree: ProgramTree | None, candidate: Candidate) -> Target:
    """The candidate's first changed file in its materialized tree, else its diff or overlay."""
    if tree is not None and tree.changed:
        rel, lines = sorted(tree.changed.items())[0]
        return Target(Path(tree.path, rel).as_uri(), max(min(lines) - 1, 0) if lines else 0)
    return Target(candidate.source.resolve().as_uri(), 0)


def list_candidates(task: Task, reveal: str, trees: dict[str, ProgramTree | None]) -> list[dict]:
    """One row per candidate, honouring the reveal level (none at `sealed`: the panel is hidden)."""
    if reveal == "sealed":
        return []
    names = anonymous_ids(task.candidates, reveal)
    rows = []
    for c in task.candidates:
        if reveal == "full":
            rows.append(
                {
                    "id": c.id,
                    "label": c.label,
                    "reference": c.reference,
                    "note": c.note or None,
                    "uri": changed_target(trees.get(c.id), c).uri,
                }
            )
        else:
            rows.append(
                {
                    "id": names[c.id],
                    "label": c.label if reveal == "labels" else None,
                    "reference": False,
                    "note": None,
                    "uri": None,
                }
            )
    return rows

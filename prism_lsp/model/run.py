"""What one panel run is: the suite being judged and the raw results of running it.

Plain data between the engine (which runs programs and fills a `PanelRun`) and the judge (which
turns one into a `PanelReport`); neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.task import Candidate

if TYPE_CHECKING:  # annotations only: model/ stays below the judge and the trees
    from prism_lsp.judge.stability import Instability
    from prism_lsp.materialize import ProgramTree


@dataclass(frozen=True)
class Suite:
    """The suite being judged: where it runs inside each tree, and its (unsaved) text."""

    rel_path: str
    text: str


@dataclass
class PanelRun:
    """Raw results of one panel run, before they are turned into a report."""

    baseline: ProgramResult
    results: list[tuple[Candidate, ProgramResult]]
    trees: dict[str, ProgramTree]
    elapsed_ms: float
    # Verdicts from run to run (judge/stability.py): tests seen with two outcomes, the hash seeds
    # every program ran under, those failures were confirmed under, and how many test reruns it took.
    unstable: tuple[Instability, ...] = ()
    seeds: tuple[int, ...] = (0,)
    confirmed_with: tuple[int, ...] = ()
    reruns: int = 0
    # The reference's changed lines its verifier runs (engine/change_coverage.py); None: no verifier.
    trusted_lines: dict[str, tuple[int, ...]] | None = None

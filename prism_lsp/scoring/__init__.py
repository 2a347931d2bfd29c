"""Scoring at scale: many (task, suite) pairs, on this machine or a Ray cluster, resumable.

One direction of flow, each module one job:
`pairs` (what to score) -> `job` (score one pair with an engine session) ->
`local` / `ray_engine` (run many jobs) -> `store` (one JSON report per pair, for
resuming) -> `aggregate` (DESIGN.md's rates) -> `reports/` (terminal table, JSON,
JUnit, SARIF, HTML). `run.score` ties them together; `console/score.py` only wires
it to the command line. Pure of LSP.
"""

from prism_lsp.scoring.pairs import Pair, discover_pairs
from prism_lsp.scoring.run import ScoreOptions, ScoreRun, score

__all__ = ["Pair", "ScoreOptions", "ScoreRun", "discover_pairs", "score"]

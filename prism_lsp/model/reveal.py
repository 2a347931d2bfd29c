"""The reveal levels, said once: every parser (manifest, command line, settings, MCP schema) derives from here.

From most to least shown; DESIGN.md's "Reveal levels" says what each shows. `INFERABLE` says
what an *adaptive* author (a suite that branches on the program's identity) can still learn
per run at each level: what `prism doctor` and README tell the person choosing a level.
"""

from __future__ import annotations

from typing import Literal, get_args

PanelLevel = Literal["full", "labels", "counts"]  # the levels where panel numbers may be shown
RevealLevel = Literal[PanelLevel, "sealed"]
REVEAL_LEVELS: tuple[str, ...] = get_args(RevealLevel)  # most to least shown

INFERABLE: dict[str, str] = {
    "full": "everything: candidates by id, their diffs, values and witnesses (a teaching aid, not a benchmark)",
    "labels": "every candidate's label: findings per line with a count, so one run of a suite that branches "
    "on the program's source hash names each line's candidates",
    "counts": "a few bits per run: whole-suite numbers (valid rejected, invalid accepted) are a subset-sum "
    "oracle, and bisection over source hashes finds every label in about 20 runs",
    "sealed": "only the suite's outcome on the initial program and the static hints: no candidate runs "
    "while the suite is written, so nothing depends on the panel",
}

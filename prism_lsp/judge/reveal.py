"""What a reveal level lets the author see of the panel: which level holds, and the names candidates go by.

The levels themselves are said once, in :mod:`prism_lsp.model.reveal`; here is what each one
allows, as sets of levels the code asks `level in ...`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import cast, get_args

from prism_lsp.model.reveal import REVEAL_LEVELS, PanelLevel, RevealLevel
from prism_lsp.model.task import Candidate, Task

LEVELS = REVEAL_LEVELS  # from most to least shown
# Where a line, test or assertion of a candidate's run may be shown (findings per line, per-test
# counts, hover rows): never at `counts`, whose numbers are for the whole suite.
LINES_SHOWN_AT = ("full", "labels")
# Where suggestions and witnesses (values found by running candidates) may be shown.
WITNESSES_SHOWN_AT = LINES_SHOWN_AT
# Where any number that depends on the panel (rates, RAR, JSF, counts) may be shown: not at `sealed`.
PANEL_SHOWN_AT: tuple[str, ...] = get_args(PanelLevel)


def strictest(*levels: str | None) -> RevealLevel:
    """The level that shows least among those given (None ignored; `full` when none is given).

    Whoever starts Prism, the task's manifest and the editor settings each may hide the panel;
    none of them can show more than another allows.
    """
    given = [level for level in levels if level is not None]
    return cast(RevealLevel, max(given, key=LEVELS.index)) if given else "full"


def after_writing(level: str) -> str:
    """The level a finished suite is scored at by whoever scores it (`prism score`): `sealed` hides the
    panel only while the suite is written, so a scorer still gets the whole-suite numbers (`counts`)."""
    return "counts" if level == "sealed" else level


def panel_to_run(task: Task, reveal: str) -> Task:
    """The task whose programs run at `reveal`: at `sealed` only the initial program (the panel does
    not run at all, so neither its results nor its running time can reach the author)."""
    return replace(task, candidates=()) if reveal == "sealed" else task


def anonymous_ids(candidates: Sequence[Candidate], reveal: str) -> dict[str, str]:
    """Candidate id -> the name shown at this reveal level.

    `full` keeps ids; `labels` numbers candidates per label (`valid-2`, `invalid-1`);
    `counts` (and `sealed`) number them without labels (`candidate-3`). Stable for a given panel
    order, so the report, hovers and candidate lists agree.
    """
    if reveal == "full":
        return {c.id: c.id for c in candidates}
    if reveal == "labels":
        counts: dict[str, int] = {}
        names = {}
        for c in candidates:
            counts[c.label] = counts.get(c.label, 0) + 1
            names[c.id] = f"{c.label}-{counts[c.label]}"
        return names
    return {c.id: f"candidate-{i + 1}" for i, c in enumerate(candidates)}

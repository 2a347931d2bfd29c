"""What a reveal level lets the author see of the panel: which level holds, and the names candidates go by."""

from __future__ import annotations

from collections.abc import Sequence

from prism_lsp.model.task import Candidate

LEVELS = ("full", "labels", "counts")  # from most to least shown
# Where suggestions and witnesses (values found by running candidates) may be shown: never at `counts`.
WITNESSES_SHOWN_AT = ("full", "labels")


def strictest(*levels: str | None) -> str:
    """The level that shows least among those given (None ignored; `full` when none is given).

    Whoever starts Prism, the task's manifest and the editor settings each may hide the panel;
    none of them can show more than another allows.
    """
    given = [level for level in levels if level is not None]
    return max(given, key=LEVELS.index) if given else "full"


def anonymous_ids(candidates: Sequence[Candidate], reveal: str) -> dict[str, str]:
    """Candidate id -> the name shown at this reveal level.

    `full` keeps ids; `labels` numbers candidates per label (`valid-2`, `invalid-1`);
    `counts` numbers them without labels (`candidate-3`). Stable for a given panel order,
    so the report, hovers and candidate lists agree.
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

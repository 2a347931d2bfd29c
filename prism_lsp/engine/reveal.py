"""What a reveal level lets the author see of the panel: which level holds, and the names candidates go by."""

from __future__ import annotations

from collections.abc import Sequence

from prism_lsp.model.task import Candidate


LEVELS = ("full", "labels", "counts")  # from most to least revealing


def strictest(*levels: str | None) -> str:
    """The least revealing of the given levels (None = not set); `full` when none is set.

    Whoever sets a level (the manifest, the command line, the editor's settings) may only
    hide more: a task that keeps its panel to `counts` stays so whatever `--reveal` says."""
    given = [level for level in levels if level is not None]
    unknown = [level for level in given if level not in LEVELS]
    if unknown:
        raise ValueError(f"unknown reveal level {unknown[0]!r}; expected one of {', '.join(LEVELS)}")
    return max(given, key=LEVELS.index, default="full")


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

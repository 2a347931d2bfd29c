"""What a suggestion says it was verified to do, at a reveal level.

`full` names candidates; `labels` says how many (`rejects 2 invalid candidates`);
at `counts` there are no suggestions at all (callers never get here). Counts read as the
status and lenses read them (:mod:`prism_lsp.document.counts`), and an edit that costs the
detection of the initial program says so.
"""

from __future__ import annotations

from prism_lsp.document.counts import invalid_count, valid_count
from prism_lsp.suggest.build import Suggestion, Verified
from prism_lsp.witness import BASELINE


def _who(ids: list[str], label: str, reveal: str) -> str:
    named = [i for i in ids if i != BASELINE]
    parts = ["the initial program"] if BASELINE in ids else []
    if named:
        if reveal == "full":
            parts.append(", ".join(f"`{i}`" for i in named))
        else:
            parts.append(f"{len(named)} {label} candidate" + ("" if len(named) == 1 else "s"))
    return " and ".join(parts)


def title(s: Suggestion, reveal: str) -> str:
    v = s.verified
    if s.kind == "rejects-valid":
        adds = f" and add {', '.join(f'`{n}`' for n in s.adds)}" if s.adds else ""
        parts = [
            f"accepts {_who(s.fixes, 'valid', reveal)}",
            f"still rejects {invalid_count(v.invalid_rejected, v.invalid_total)}",
        ]
        lost = initial_lost(v)
        return f"Relax to `{s.statement}`{adds} ({'; '.join([*parts, lost] if lost else parts)})"
    what = (
        f"a check that `{s.witness.call}` leaves its arguments unchanged"
        if s.witness is not None and s.witness.kind == "mutates"
        else f"`{s.statement}`"
    )
    rejects = [i for i in s.fixes if i != BASELINE]
    parts = []
    if rejects:
        parts.append(f"rejects {_who(rejects, 'invalid', reveal)}")
    if BASELINE in s.fixes:
        parts.append("fails on the initial program")
    parts.append(f"still accepts {valid_count(v.valid_accepted, v.valid_total)}")
    return f"Add {what} ({'; '.join(parts)})"


def initial_lost(v: Verified) -> str:
    """What an edit costs on the initial program, '' when nothing: a relaxed assert can let the
    initial program through where it caught it (the lens then reads `initial: missed`)."""
    if v.detected_before and not v.detects_baseline:
        return "the suite no longer fails on the initial program"
    if v.test_caught_before and not v.test_catches:
        return "this test no longer fails on the initial program"
    return ""

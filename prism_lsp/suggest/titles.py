"""What a suggestion says it was verified to do, at a reveal level.

`full` names candidates; `labels` says how many (`rejects 2 invalid candidates`);
at `counts` there are no suggestions at all (callers never get here).
"""

from __future__ import annotations

from prism_lsp.suggest.build import Suggestion
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
        return (
            f"Relax to `{s.statement}`{adds} (accepts {_who(s.fixes, 'valid', reveal)}; "
            f"still rejects {v.invalid_rejected}/{v.invalid_total} invalid)"
        )
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
    parts.append(f"valid {v.valid_accepted}/{v.valid_total} still accepted")
    return f"Add {what} ({'; '.join(parts)})"

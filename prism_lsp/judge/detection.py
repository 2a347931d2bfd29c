"""Why an `error` on the initial program detects it, in the words the report and the editor use.

`metrics.detects_initial` decides; this says which case it was: "`g` does not exist there"
(the suite imports what the fix adds), "a fixture fails there: ...", "it times out there while
the reference passes in 0.2 s" (the hang is the bug). Only the initial program's own message
is quoted; of the reference, only that it passed (and, at `full`, how long it took).
"""

from __future__ import annotations

import re

from prism_lsp.judge.metrics import SUITE_ERRORS, detects_initial
from prism_lsp.model.outcome import ProgramResult

_CANNOT_IMPORT = re.compile(r"ImportError: cannot import name '([\w.]+)'")
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
_NO_ATTRIBUTE = re.compile(r"AttributeError: module '([\w.]+)' has no attribute '(\w+)'")
_MISBEHAVES = {
    "timeout": "it times out there",
    "memory": "it runs out of memory there",
    "killed": "it is killed there",
    "crash": "it crashes there",
    "output-limit": "it writes more output than the limit allows there",
    "exited": "it exits before pytest finishes there",
}


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def missing_name(message: str) -> str | None:
    """`g` of "cannot import name 'g'", `solution.g` of "module 'solution' has no attribute 'g'",
    `module x` of "No module named 'x'"; None for any other error."""
    if m := _CANNOT_IMPORT.search(message):
        return f"`{m[1]}`"
    if m := _NO_ATTRIBUTE.search(message):
        return f"`{m[1]}.{m[2]}`"
    if m := _NO_MODULE.search(message):
        return f"module `{m[1]}`"
    return None


def detection(baseline: ProgramResult, reference: ProgramResult | None, with_values: bool = True) -> str:
    """What follows "detects the initial program because" for an `error` that detects it; ''
    otherwise (a `fail` says it by itself; an error Prism made detects nothing)."""
    ref_outcome = reference.outcome if reference is not None else None
    if baseline.outcome != "error" or not detects_initial(baseline.outcome, baseline.reason, ref_outcome):
        return ""
    message = _first_line(baseline.message)
    if baseline.reason in SUITE_ERRORS:
        name = missing_name(baseline.message)
        if name is not None:
            return f"{name} does not exist there"
        what = "the suite cannot be collected there" if baseline.reason == "collection" else "a fixture fails there"
        return f"{what}: {message}" if message else what
    assert reference is not None  # a misbehaving program detects only when the reference passed
    took = f" in {reference.duration_ms / 1000:.1f} s" if with_values and reference.duration_ms else " in time"
    return f"{_MISBEHAVES[baseline.reason or '']} while the reference passes{took}"

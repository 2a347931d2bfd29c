"""Unified diffs against the initial state, as candidates are stored (`git apply` and `patch -p1` accept them)."""

from __future__ import annotations

import difflib
from pathlib import Path

_NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(rel: str, before: str | None, after: str) -> str:
    """The diff turning `before` (None: the file is new) into `after`, for path `rel` of the tree."""
    old = (before or "").splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    head_old = "/dev/null" if before is None else f"a/{rel}"
    out = [f"diff --git a/{rel} b/{rel}\n"]
    if before is None:
        out.append("new file mode 100644\n")
    for line in difflib.unified_diff(old, new, head_old, f"b/{rel}", n=3):
        out.append(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE)
    return "".join(out) if len(out) > 2 or before is None and new else ""


def tree_diff(initial: Path, files: dict[str, str]) -> str:
    """The diff from `initial` to the same tree with `files` (relative path -> text) replaced, in path order."""
    parts = []
    for rel in sorted(files):
        path = initial / rel
        before = path.read_text(encoding="utf-8") if path.is_file() else None
        if before != files[rel]:
            parts.append(file_diff(rel, before, files[rel]))
    return "".join(parts)

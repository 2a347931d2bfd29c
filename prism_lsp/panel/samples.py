"""Unlabelled implementations (model samples, students' submissions) read from JSON lines.

Each row is `{"id": ..., "code": ...}` (the whole text of the file the reference changes, or
of `"file"` when given) or `{"id": ..., "patch": ...}` (a unified diff against the initial
state). Every row comes back: as a candidate to label, or with the precise reason it cannot be
one (not JSON, bad or duplicate id, does not compile). Nothing is dropped silently.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from prism_lsp.materialize import TreeCache
from prism_lsp.model.task import Task
from prism_lsp.panel.diffs import tree_diff

_ID = re.compile(r"^[a-z0-9._-]+$")


@dataclass(frozen=True)
class Sample:
    """One row: its id and, when it could be read, its diff against the initial state."""

    row: int  # 1-based line number in the file
    id: str
    diff: str = ""
    error: str = ""


def _target_file(task: Task, cache: TreeCache, row: dict) -> str:
    if "file" in row:
        rel = row["file"]
        # A row is untrusted: its path must name a file inside the program tree.
        if (
            not isinstance(rel, str)
            or not rel
            or PurePosixPath(rel).is_absolute()
            or ".." in PurePosixPath(rel).parts
            or "\\" in rel
            or rel.split("/")[0] == ".git"
        ):
            raise ValueError(f"`file` must be a relative path inside the program, got {rel!r}")
        return PurePosixPath(rel).as_posix()
    changed = sorted(rel for rel in cache.candidate(task, task.reference).changed if rel.endswith(".py"))
    if len(changed) != 1:
        raise ValueError(
            f"`code` needs a `file` key: the reference changes {len(changed)} Python files "
            f"({', '.join(changed) or 'none'})"
        )
    return changed[0]


def _read_row(task: Task, cache: TreeCache, number: int, line: str, seen: set[str]) -> Sample:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return Sample(number, f"row-{number}", error=f"not JSON ({exc.msg} at column {exc.colno})")
    if not isinstance(row, dict):
        return Sample(number, f"row-{number}", error="expected an object {id, code} or {id, patch}")
    cid = row.get("id")
    if not isinstance(cid, str) or not _ID.match(cid):
        return Sample(number, f"row-{number}", error=f"`id` must be a string matching [a-z0-9._-]+, got {cid!r}")
    if cid in seen or task.candidate(cid) is not None:
        return Sample(
            number,
            cid,
            error=f"id {cid!r} is already {'in the panel' if cid not in seen else 'used by an earlier row'}",
        )
    seen.add(cid)
    code, patch = row.get("code"), row.get("patch")
    if (code is None) == (patch is None):
        return Sample(number, cid, error="expected exactly one of `code` (file text) or `patch` (unified diff)")
    if patch is not None:
        if not isinstance(patch, str) or not patch.strip():
            return Sample(number, cid, error="`patch` must be a non-empty unified diff")
        return Sample(number, cid, diff=patch if patch.endswith("\n") else patch + "\n")
    if not isinstance(code, str):
        return Sample(number, cid, error="`code` must be a string (the file's text)")
    try:
        rel = _target_file(task, cache, row)
    except ValueError as exc:
        return Sample(number, cid, error=str(exc))
    try:
        compile(code, rel, "exec")
    except SyntaxError as exc:
        return Sample(number, cid, error=f"does not compile: SyntaxError: {exc.msg} (line {exc.lineno})")
    except ValueError as exc:  # null bytes
        return Sample(number, cid, error=f"does not compile: {exc}")
    diff = tree_diff(task.initial, {rel: code})
    if not diff:
        return Sample(number, cid, error="identical to the initial program: it changes nothing")
    return Sample(number, cid, diff=diff)


def read_samples(task: Task, cache: TreeCache, path: Path) -> list[Sample]:
    """One `Sample` per non-blank line of `path`, in order."""
    seen: set[str] = set()
    samples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            samples.append(_read_row(task, cache, number, line, seen))
    return samples

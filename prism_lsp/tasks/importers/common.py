"""What every importer shares: the error type, the task description, and the native writer.

An importer reads its format into a `TaskSpec` (pure data, nothing written), then
`write_native` turns that into a `prism.toml` task folder and loads it. The folder
is assembled next to `dest` and renamed into place only when every check passed
(files present, digests equal, each patch applies to the initial state, exactly one
reference), so a failed import never leaves a half-written task behind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.materialize.apply import ApplyError, apply_patch, copy_tree
from prism_lsp.materialize.digest import file_digest
from prism_lsp.model.task import Task
from prism_lsp.tasks.importers.errors import TaskImportError
from prism_lsp.tasks.importers.tree_files import copy_folder
from prism_lsp.tasks.native import MANIFEST, load_task

# Top-level names of a native task folder that a suite path may not take.
RESERVED = {"initial", "candidates", "environment", MANIFEST}

# A line that starts a file's change in a unified or git diff: without one, a patch changes nothing.
_DIFF_START = re.compile(rb"^(diff --git |--- |\+\+\+ |@@ |Binary files )", re.M)


@dataclass
class CandidateSpec:
    """One panel entry: a unified diff (`patch`) or whole files (`files`, an overlay).

    Contents are bytes when they come from files (kept exactly: CRLF, Latin-1, binary),
    text when they come from JSON; both are written out unchanged."""

    id: str
    label: str
    reference: bool = False
    patch: str | bytes | None = None
    files: dict[str, str | bytes] | None = None
    note: str = ""
    origin: tuple[str, str] = ("", "")  # (file, key) named when this candidate is at fault


@dataclass
class TaskSpec:
    """A task read from another format, ready to be written as a native folder."""

    id: str
    source: Path
    statement: str = ""
    initial_dir: Path | None = None  # copied as the initial state (minus `initial_skip`)
    initial_skip: set[str] = field(default_factory=set)  # top-level names left out of the copy
    initial_files: dict[str, str | bytes] = field(default_factory=dict)  # written over the initial state
    candidates: list[CandidateSpec] = field(default_factory=list)
    suites: dict[str, str] = field(default_factory=dict)  # path relative to the tree -> text (a suite is text)
    timeout_s: float | None = None
    image: str | None = None
    dockerfile: Path | None = None  # its folder is copied as the build context
    test_command: str | None = None
    entry: list[str] = field(default_factory=list)  # `module:function` entry points


def slug(text: str) -> str:
    """`text` as a task/candidate id ([a-z0-9._-]+)."""
    out = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")
    return out or "task"


def _origin(c: CandidateSpec, file: Path | str) -> tuple[str, str]:
    """(file, key) to name when candidate `c` is at fault."""
    return c.origin if c.origin[0] else (str(file), f"candidate ({c.id})")


def check_panel(candidates: list[CandidateSpec], file: Path | str) -> None:
    """Unique ids, labels valid|invalid, exactly one reference and it is valid."""
    seen: set[str] = set()
    for c in candidates:
        ofile, key = _origin(c, file)
        if c.id in seen:
            raise TaskImportError(ofile, key, f"duplicate candidate id {c.id!r}")
        seen.add(c.id)
        if c.label not in ("valid", "invalid"):
            raise TaskImportError(ofile, f"{key}.label", f'expected "valid" or "invalid", got {c.label!r}')
        if c.reference and c.label != "valid":
            raise TaskImportError(ofile, f"{key}.label", 'the reference must be labelled "valid"')
    refs = [c.id for c in candidates if c.reference]
    if len(refs) != 1:
        raise TaskImportError(
            file, "reference", f"expected exactly one reference, found {len(refs)} ({', '.join(refs) or 'none'})"
        )


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)  # JSON string escapes are valid TOML basic strings


def _manifest_text(spec: TaskSpec, entries: list[dict]) -> str:
    task: dict[str, object] = {"id": spec.id, "statement": spec.statement, "initial": "initial"}
    if spec.timeout_s:
        task["timeout_s"] = float(min(max(spec.timeout_s, 1), 3600))
    if spec.image:
        task["image"] = spec.image
    if spec.dockerfile:
        task["dockerfile"] = f"environment/{spec.dockerfile.name}"
    if spec.test_command:
        task["test_command"] = spec.test_command
    lines = [f"# Imported by `prism import` from {spec.source}", "[task]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in task.items()]
    if spec.entry:
        lines.append("entry = [" + ", ".join(_toml_value(e) for e in spec.entry) + "]")
    for entry in entries:
        lines += ["", "[[candidate]]"] + [f"{k} = {_toml_value(v)}" for k, v in entry.items() if v not in ("", None)]
    return "\n".join(lines) + "\n"


def _write(path: Path, data: str | bytes) -> None:
    # Bytes as they are, text as UTF-8: never `write_text`, which would translate line endings.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def _check_changes_something(patch: str | bytes, c: CandidateSpec, file: Path) -> None:
    data = patch.encode("utf-8") if isinstance(patch, str) else patch
    if not data.strip():
        raise TaskImportError(*_origin(c, file), "the patch is empty: it changes nothing")
    if not _DIFF_START.search(data):
        raise TaskImportError(
            *_origin(c, file),
            "the patch changes nothing: no `diff --git`, `---`/`+++` or `@@` line (expected a unified diff)",
        )


def _check_applies(initial: Path, diff: Path, c: CandidateSpec, file: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="prism-import-") as tmp:
        tree = Path(tmp) / "tree"
        copy_tree(initial, tree)
        try:
            apply_patch(diff, tree)
        except ApplyError as exc:
            raise TaskImportError(*_origin(c, file), f"the patch does not apply to the initial state: {exc}") from None


def write_native(spec: TaskSpec, dest: Path) -> Task:
    """Write `spec` as a native task folder at `dest` (which must not exist or be empty); load it.

    Raises `TaskImportError` (a `ManifestError`) for every problem; on error `dest` is untouched.
    """
    dest = Path(dest).resolve()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise TaskImportError(dest, "", "destination exists and is not empty; choose a new folder")
    check_panel(spec.candidates, spec.source)
    for rel in spec.suites:
        if Path(rel).is_absolute() or ".." in Path(rel).parts or Path(rel).parts[0] in RESERVED:
            raise TaskImportError(spec.source, "suite", f"suite path {rel!r} clashes with the task layout")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        initial = staging / "initial"
        initial.mkdir()
        if spec.initial_dir is not None:
            copy_folder(spec.initial_dir, initial, skip=spec.initial_skip)
        for rel, text in spec.initial_files.items():
            _write(initial / rel, text)
        entries = []
        for c in spec.candidates:
            entry: dict = {"id": c.id, "label": c.label, "reference": c.reference or None}
            if c.patch is not None:
                _check_changes_something(c.patch, c, spec.source)
                path = staging / "candidates" / f"{c.id}.diff"
                _write(path, c.patch)
                _check_applies(initial, path, c, spec.source)
                entry |= {"patch": f"candidates/{c.id}.diff", "sha256": file_digest(path)}
            else:
                for rel, text in (c.files or {}).items():
                    _write(staging / "candidates" / c.id / rel, text)
                (staging / "candidates" / c.id).mkdir(parents=True, exist_ok=True)
                entry["overlay"] = f"candidates/{c.id}"
            entry["note"] = c.note
            entries.append(entry)
        for rel, text in spec.suites.items():
            _write(staging / rel, text)
        if spec.dockerfile is not None:
            copy_folder(spec.dockerfile.parent, staging / "environment")
        _write(staging / MANIFEST, _manifest_text(spec, entries))
        load_task(staging)  # the written folder must load as a native task
        if dest.exists():
            dest.rmdir()
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return load_task(dest)


def require_file(path: Path, what: str, source: Path) -> Path:
    """`path` when it is a file, else a `TaskImportError` naming what is missing."""
    if not path.is_file():
        raise TaskImportError(source, path.name, f"missing {what} (expected {path})")
    return path

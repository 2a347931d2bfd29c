"""Writing the task of `prism init`: the manifest, candidates kept from before, the atomic swap.

A task already at the repository root is updated only when `prism init` made it (the marker
on its first line, after the `#:schema` line) and it still loads; its hand-made candidates (every one but `reference`)
and a statement the author wrote are kept, their files under `.prism/` carried over. Anything else there is a
conflict, reported, never overwritten.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.model.json_schemas import render, schemas
from prism_lsp.model.manifest import ManifestError, parse_manifest
from prism_lsp.repo import git
from prism_lsp.repo.errors import InitError
from prism_lsp.tasks.native import MANIFEST, load_task

MARKER = "# Made by `prism init`"
# The statement prism init wrote itself (from a commit message): replaced on update, unlike one the
# author wrote (--statement, or an edit of prism.toml), which is kept.
AUTO_STATEMENT = ".prism/statement-from-git.txt"
EXCLUDES = ["/prism.toml", "/.prism/"]
# TOML editors (Taplo, Even Better TOML) complete and check prism.toml from this line; the schema is
# written beside the task's other files, so it matches the Prism that made the task.
SCHEMA_FILE = ".prism/prism.toml.schema.json"
SCHEMA_LINE = f"#:schema ./{SCHEMA_FILE}"


@dataclass
class Manifest:
    id: str
    statement: str
    initial: str
    python: str | None
    pythonpath: list[str]
    origin: str
    kept: list[dict] = field(default_factory=list)
    statement_from_git: bool = False


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def write_manifest(staging: Path, m: Manifest) -> None:
    task = {
        "id": m.id,
        "statement": m.statement,
        "initial": m.initial,
        "python": m.python,
        "pythonpath": m.pythonpath or None,
    }
    lines = [
        SCHEMA_LINE,
        f"{MARKER} ({m.origin}); run it again to update this task.",
        "# Candidates added below (files under .prism/candidates/) are kept by `prism init`.",
        "[task]",
    ]
    lines += [f"{k} = {_value(v)}" for k, v in task.items() if v is not None]
    lines += [
        "",
        "[[candidate]]",
        'id = "reference"',
        'label = "valid"',
        "reference = true",
        'patch = ".prism/candidates/reference.diff"',
        'note = "the fix, without its test files"',
    ]
    for cand in m.kept:
        lines += ["", "[[candidate]]"] + [f"{k} = {_value(v)}" for k, v in cand.items() if v not in (None, "")]
    (staging / MANIFEST).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (staging / SCHEMA_FILE).parent.mkdir(parents=True, exist_ok=True)
    (staging / SCHEMA_FILE).write_text(render(schemas()["prism.toml.schema.json"]), encoding="utf-8")
    if m.statement_from_git:
        (staging / AUTO_STATEMENT).write_text(m.statement, encoding="utf-8")
    load_task(staging)  # what was written must load as a task


def made_by_init(manifest: Path) -> bool:
    """Whether `prism init` wrote this manifest (the marker on its first line, or on the second
    after the `#:schema` line)."""
    try:
        with open(manifest, encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
            return (fh.readline() if first.startswith("#:schema") else first).startswith(MARKER)
    except OSError:
        return False


def kept_candidates(repo_root: Path, staging: Path) -> tuple[list[dict], str]:
    """The hand-made candidates of the task already at `repo_root` (copied into `staging`) and its
    statement when the author wrote it; ([], "") when there is none. `InitError` when what is there is not ours to update."""
    manifest = repo_root / MANIFEST
    if not manifest.exists():
        if (repo_root / ".prism").exists():
            raise InitError(
                f"{repo_root / '.prism'} exists without a prism.toml beside it; move it away "
                "first (prism init will not overwrite it)"
            )
        return [], ""
    if not made_by_init(manifest):
        raise InitError(
            f"{manifest} exists and was not made by prism init; refusing to overwrite it "
            "(move it away, or run prism init in another repository)"
        )
    try:
        parsed = parse_manifest(manifest)
    except ManifestError as exc:
        raise InitError(f"the task already there does not load, so its candidates cannot be kept: {exc}") from None
    kept = []
    for c in parsed.candidate:
        if c.id == "reference":
            continue
        # Copied into the staging folder: those under .prism/ to move with it, the others (a diff the
        # repository tracks) only so that the staged task loads as it will at the root.
        source = c.patch or c.overlay or ""
        src, dest = repo_root / source, staging / source
        if not src.resolve().is_relative_to(repo_root.resolve()):
            raise InitError(f"{manifest}: candidate {c.id!r} names {source}, outside the repository")
        if not src.exists():
            raise InitError(f"{manifest}: candidate {c.id!r} names {source}, which does not exist")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, symlinks=True)
        else:
            shutil.copy2(src, dest)
        kept.append(
            {"id": c.id, "label": c.label, "patch": c.patch, "overlay": c.overlay, "sha256": c.sha256, "note": c.note}
        )
    auto = repo_root / AUTO_STATEMENT
    written_by_init = auto.is_file() and auto.read_text(encoding="utf-8") == parsed.task.statement
    return kept, "" if written_by_init else parsed.task.statement


def publish(repo: git.Repo, staging: Path) -> bool:
    """Move the staged task into the repository root, replacing the old one; True when it updated one."""
    git.exclude(repo, EXCLUDES)
    old = repo.root / ".prism"
    updated = (repo.root / MANIFEST).exists()
    if old.exists():
        os.replace(old, staging / "previous")
    os.replace(staging / ".prism", old)
    os.replace(staging / MANIFEST, repo.root / MANIFEST)
    return updated

"""The patch-set folder that carries the panel of a Terminal-Bench or Harbor task.

Layout (next to the task folder, or inside it, or given with `--patch-set DIR`):

    patch-set/
      patch-set.toml          # or patch-set.json (also accepted: patches.toml / patches.json)
      reference.diff
      off-by-one.diff

    initial = "workspace"     # optional: the initial state, relative to the patch set
    [[candidate]]             # JSON: {"initial": ..., "candidates": [{...}, ...]}
    id = "reference"
    label = "valid"           # valid | invalid
    reference = true          # exactly one
    patch = "reference.diff"  # unified diff against the initial state
    sha256 = "…"              # required: sha256 of the patch file, verified
    note = "…"                # optional
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.materialize.digest import file_digest
from prism_lsp.tasks.importers.common import CandidateSpec, TaskImportError, check_panel, slug

NAMES = ("patch-set.toml", "patch-set.json", "patches.toml", "patches.json")


@dataclass(frozen=True)
class PatchSet:
    """A verified panel: candidates with patch text, and the initial-state folder if it names one."""

    manifest: Path
    candidates: list[CandidateSpec]
    initial: Path | None


def find_patch_set(task_dir: Path, given: Path | None) -> Path:
    """The patch-set folder: `given`, else `<task>/patch-set`, else `<task>/../<task name>.patch-set`,
    else `<task>/../patch-set`."""
    options = (
        [given]
        if given
        else [task_dir / "patch-set", task_dir.parent / f"{task_dir.name}.patch-set", task_dir.parent / "patch-set"]
    )
    for folder in options:
        if folder is not None and folder.is_dir():
            return folder.resolve()
    where = ", ".join(str(p) for p in options if p is not None)
    raise TaskImportError(
        task_dir, "patch-set", f"no patch-set folder found (looked at {where}); pass --patch-set DIR holding the panel"
    )


def _read_manifest(folder: Path) -> tuple[Path, dict]:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            break
    else:
        raise TaskImportError(folder, "", f"missing the patch-set manifest; expected one of {', '.join(NAMES)}")
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise TaskImportError(path, "", f"cannot parse: {exc}") from None
    except RecursionError:
        raise TaskImportError(path, "", "cannot parse: values nested too deeply") from None
    if not isinstance(data, dict):
        raise TaskImportError(path, "", "expected a table/object at the top level")
    return path, data


def read_patch_set(folder: Path) -> PatchSet:
    """Read and verify a patch set: every patch file exists, its sha256 matches, one reference.

    Raises `TaskImportError` naming the manifest file and the entry's key.
    """
    path, data = _read_manifest(folder)
    entries = data.get("candidate", data.get("candidates"))
    if not isinstance(entries, list) or not entries:
        raise TaskImportError(path, "candidate", "expected a non-empty list of candidates")
    candidates = []
    for i, raw in enumerate(entries):
        key = f"candidate[{i}]"
        if not isinstance(raw, dict):
            raise TaskImportError(path, key, "expected a table/object")
        for needed in ("id", "label", "patch", "sha256"):
            if not isinstance(raw.get(needed), str) or not raw[needed]:
                raise TaskImportError(path, f"{key}.{needed}", "missing required key (a non-empty string)")
        cid = raw["id"]
        key = f"candidate[{i}] ({cid})"
        if slug(cid) != cid:
            raise TaskImportError(path, f"{key}.id", f"expected an id matching [a-z0-9._-]+, got {cid!r}")
        patch = (folder / raw["patch"]).resolve()
        if not patch.is_relative_to(folder.resolve()):
            raise TaskImportError(path, f"{key}.patch", f"path {raw['patch']!r} leaves the patch-set folder")
        if not patch.is_file():
            raise TaskImportError(path, f"{key}.patch", f"file {raw['patch']!r} does not exist")
        if not re.fullmatch(r"[0-9a-f]{64}", raw["sha256"]):
            raise TaskImportError(path, f"{key}.sha256", "expected 64 lowercase hex digits")
        digest = file_digest(patch)
        if digest != raw["sha256"]:
            raise TaskImportError(
                path,
                f"{key}.sha256",
                f"digest mismatch: the manifest says {raw['sha256']}, {raw['patch']} has {digest}",
            )
        reference = raw.get("reference", False)
        if not isinstance(reference, bool):
            raise TaskImportError(path, f"{key}.reference", "expected true or false")
        candidates.append(
            CandidateSpec(
                id=cid,
                label=raw["label"],
                reference=reference,
                patch=patch.read_bytes(),  # the bytes digested, CRLF and all
                note=str(raw.get("note", "")),
                origin=(str(path), f"{key}.patch"),
            )
        )
    check_panel(candidates, path)
    initial = None
    if data.get("initial"):
        initial = (folder / str(data["initial"])).resolve()
        if not initial.is_dir():
            raise TaskImportError(path, "initial", f"folder {data['initial']!r} does not exist")
    return PatchSet(path, candidates, initial)

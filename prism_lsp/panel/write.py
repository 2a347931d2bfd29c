"""Writing new candidates into a task folder: diff files plus `[[candidate]]` entries in `prism.toml`.

Labelled samples are appended at the end of the manifest. Mutants live in one generated block
between two marker lines, which a rebuild replaces whole, so building twice with the same seed
leaves the same bytes, and the author's own text around it is kept as written.
After writing, the task must still load; otherwise the manifest is put back and the error raised.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.materialize.digest import file_digest
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.task import Task
from prism_lsp.tasks.importers.common import _toml_value
from prism_lsp.tasks.native import load_task

BEGIN = "# >>> prism panel build: generated mutants (a rebuild replaces this block)"
END = "# <<< prism panel build"


@dataclass(frozen=True)
class NewCandidate:
    """A labelled candidate to write: its diff text and its manifest fields."""

    id: str
    label: str
    origin: str
    diff: str
    note: str = ""


def copy_task(task: Task, dest: Path) -> Task:
    """Copy the task folder to `dest` (which must not exist) and load the copy."""
    if dest.exists():
        raise ManifestError(dest, "", "the output folder exists; choose a new one")
    shutil.copytree(task.root, dest, symlinks=True)
    return load_task(dest)


def candidates_folder(task: Task) -> str:
    """Where new candidates' files go: `.prism/candidates` in a task made by `prism init` (its task
    root is the repository's root, where only `prism.toml` and `.prism/` are excluded from git),
    `candidates` in a task folder."""
    from prism_lsp.repo.writer import made_by_init

    return ".prism/candidates" if made_by_init(task.manifest) else "candidates"


def _entry(task: Task, c: NewCandidate, folder: str) -> str:
    rel = f"{candidates_folder(task)}/{folder}/{c.id}.diff"
    path = task.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(c.diff.encode("utf-8"))
    fields = {
        "id": c.id,
        "label": c.label,
        "patch": rel,
        "sha256": file_digest(path),
        "origin": c.origin,
        "note": c.note,
    }
    return "[[candidate]]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in fields.items() if v != "")


def _commit(task: Task, text: str, before: str) -> Task:
    task.manifest.write_text(text, encoding="utf-8")
    try:
        return load_task(task.root)
    except ManifestError:
        task.manifest.write_text(before, encoding="utf-8")
        raise


def append_candidates(task: Task, new: list[NewCandidate], folder: str = "samples") -> Task:
    """Add `new` after everything else in the manifest; return the reloaded task."""
    before = task.manifest.read_text(encoding="utf-8")
    text = before if before.endswith("\n") or not before else before + "\n"
    for c in new:
        text += "\n" + _entry(task, c, folder)
    return _commit(task, text, before)


def replace_mutants(task: Task, new: list[NewCandidate], folder: str = "mutants") -> Task:
    """Replace the generated block (and its diff folder) with `new`; return the reloaded task."""
    before = task.manifest.read_text(encoding="utf-8")
    head, tail = before, ""
    if BEGIN in before:
        head, _, rest = before.partition(BEGIN)
        tail = rest.partition(END + "\n")[2] if END + "\n" in rest else ""
        head = head.rstrip("\n") + "\n"
    stale = task.root / candidates_folder(task) / folder
    if stale.is_dir():
        shutil.rmtree(stale)
    block = BEGIN + "\n" + "".join("\n" + _entry(task, c, folder) for c in new) + "\n" + END + "\n"
    text = (head if head.endswith("\n") else head + "\n") + "\n" + block + tail
    return _commit(task, text, before)

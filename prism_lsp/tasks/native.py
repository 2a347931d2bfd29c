"""Load a native `prism.toml` task folder, checking files and digests."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from prism_lsp.materialize.digest import file_digest, tree_digest
from prism_lsp.model.manifest import ManifestError, parse_manifest
from prism_lsp.model.task import Candidate, Task

MANIFEST = "prism.toml"


def find_task_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` holding a `prism.toml`, or None."""
    path = path.resolve()
    for folder in [path, *path.parents] if path.is_dir() else path.parents:
        if (folder / MANIFEST).is_file():
            return folder
    return None


def _inside(root: Path, rel: str, manifest: Path, key: str) -> Path:
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ManifestError(manifest, key, f"path {rel!r} leaves the task folder; expected a path inside it")
    return target


def _require(target: Path, rel: str, manifest: Path, key: str, want: str, purpose: str) -> None:
    """Raise `ManifestError` unless `target` is a `want` ("file" or "folder").

    Says what is there instead: a patch pointing at a folder is not "missing", and
    the author fixes it differently (use `overlay`, or name the file inside).
    """
    if target.is_dir():
        found = "folder"
    elif target.is_file():
        found = "file"
    elif target.exists():
        found = "special file"  # a socket, a fifo, a device
    else:
        raise ManifestError(manifest, key, f"{want} {rel!r} does not exist; expected {purpose}")
    if found != want:
        raise ManifestError(manifest, key, f"{rel!r} is a {found}, not a {want}; expected {purpose}")


def load_task(folder: Path) -> Task:
    """Load the task declared by `folder/prism.toml` (or the manifest path itself).

    Raises `ManifestError` for any problem: bad TOML, wrong keys or values,
    missing files, a digest that does not match.
    """
    folder = Path(folder)
    manifest_path = folder if folder.name == MANIFEST else folder / MANIFEST
    if not manifest_path.is_file():
        raise ManifestError(manifest_path, "", "no prism.toml here; expected a task folder holding one")
    root = manifest_path.parent.resolve()
    m = parse_manifest(manifest_path)
    t = m.task
    initial = _inside(root, t.initial, manifest_path, "task.initial")
    _require(
        initial, t.initial, manifest_path, "task.initial", "folder", "the initial program state (the workspace root)"
    )
    dockerfile = None
    if t.dockerfile:
        dockerfile = _inside(root, t.dockerfile, manifest_path, "task.dockerfile")
        _require(dockerfile, t.dockerfile, manifest_path, "task.dockerfile", "file", "a Dockerfile")
    verifier = None
    if m.verifier is not None:
        verifier = _inside(root, m.verifier.suite, manifest_path, "verifier.suite")
        _require(
            verifier,
            m.verifier.suite,
            manifest_path,
            "verifier.suite",
            "file",
            "the verifier: a trusted pytest file that decides validity",
        )
    candidates = []
    for i, c in enumerate(m.candidate):
        key = f"candidate[{i}] ({c.id})"
        if c.patch is not None:
            src = _inside(root, c.patch, manifest_path, f"{key}.patch")
            _require(
                src,
                c.patch,
                manifest_path,
                f"{key}.patch",
                "file",
                "a unified diff against `initial` (for a folder of files, use `overlay`)",
            )
            digest: str | None = file_digest(src)
            kind: Literal["patch", "overlay"] = "patch"
        else:
            src = _inside(root, c.overlay or "", manifest_path, f"{key}.overlay")
            _require(
                src,
                c.overlay or "",
                manifest_path,
                f"{key}.overlay",
                "folder",
                "files that replace or add files of `initial` (for a diff, use `patch`)",
            )
            digest = tree_digest(src) if c.sha256 else None
            kind = "overlay"
        if c.sha256 and digest != c.sha256:
            raise ManifestError(
                manifest_path, f"{key}.sha256", f"digest mismatch: manifest says {c.sha256}, the {kind} has {digest}"
            )
        candidates.append(
            Candidate(
                id=c.id,
                label=c.label,
                reference=c.reference,
                kind=kind,
                source=src,
                note=c.note,
                sha256=c.sha256,
                origin=c.origin,
            )
        )
    return Task(
        id=t.id,
        root=root,
        manifest=manifest_path,
        initial=initial,
        candidates=tuple(candidates),
        statement=t.statement,
        timeout_s=t.timeout_s,
        memory_mb=t.memory_mb,
        pids_max=t.pids_max,
        sandbox=t.sandbox,
        image=t.image,
        dockerfile=dockerfile,
        python=t.python,
        reveal=t.reveal,
        test_command=t.test_command,
        pythonpath=tuple(t.pythonpath),
        verifier=verifier,
        entry=tuple(t.entry or ()),
    )

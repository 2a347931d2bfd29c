"""Content digests of files and folders (what the cache and `sha256 =` key on)."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def file_digest(path: Path) -> str:
    """sha256 hex of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def tree_digest(root: Path) -> str:
    """sha256 over the sorted (relative path, kind, content) of everything under `root`.

    Symlinks are hashed by their target text, not followed, so a digest never
    reads outside the tree.
    """
    h = hashlib.sha256()
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in filenames:
            entries.append(os.path.join(dirpath, name))
    for full in sorted(entries):
        rel = os.path.relpath(full, root).replace(os.sep, "/")
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            h.update(b"L" + os.fsencode(rel) + b"\0" + os.fsencode(os.readlink(full)) + b"\0")
        elif stat.S_ISREG(st.st_mode):
            h.update(b"F" + os.fsencode(rel) + b"\0" + file_digest(Path(full)).encode() + b"\0")
        else:
            h.update(b"S" + os.fsencode(rel) + b"\0")
    return h.hexdigest()

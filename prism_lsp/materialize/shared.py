"""Candidate trees that share the initial state's files on disk.

A candidate's tree is the cached initial tree (sealed, verified) hard-linked file by file, and
only the files its diff or overlay writes get a private copy before anything writes them: a
repository of 968 files (networkx, 12.5 MB) then costs one copy of its files, not one per
candidate. Sharing inodes is safe because nothing writes a cached file in place: every cached
file has no write bit, the sandbox binds the cache read-only, the runner copies a tree before
a program runs on it, and the two writers here (`git apply`/`patch`, an overlay's copy) get a
private copy of each file they touch first (`own_copies`). Where a link cannot be made (another
filesystem, a kernel that refuses links to files of another uid) the file is copied instead.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path


def link_tree(src: Path, dst: Path) -> None:
    """Fill `dst` with `src`'s folders (new, writable), links (as links) and files (hard links).

    `src` is a tree of the cache: already checked (no `.git`, no link leading out, no special file).
    """
    for dirpath, dirnames, filenames in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        target_dir = dst / rel_dir if rel_dir != "." else dst
        target_dir.mkdir(parents=True, exist_ok=True)
        for name in list(dirnames) + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                if name in dirnames:
                    dirnames.remove(name)
                os.symlink(os.readlink(full), target_dir / name)
            elif stat.S_ISREG(st.st_mode):
                try:
                    os.link(full, target_dir / name, follow_symlinks=False)
                except OSError:
                    shutil.copy2(full, target_dir / name)


def own_copies(tree: Path, rels: set[str]) -> None:
    """Give each existing regular file of `rels` (paths relative to `tree`) an inode of its own,
    writable by its owner, so a write to it changes no other tree."""
    for rel in sorted(rels):
        path = tree / rel
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
            continue
        private = path.with_name(f".{path.name}.prism-own")
        shutil.copy2(path, private)
        os.chmod(private, stat.S_IMODE(st.st_mode) | stat.S_IWUSR)
        os.replace(private, path)

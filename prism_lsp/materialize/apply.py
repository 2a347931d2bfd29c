"""Apply a checked diff or overlay to a fresh copy of the initial state."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from prism_lsp.materialize.diffcheck import UnsafeDiff, check_path
from prism_lsp.materialize.links import leaves_tree


class ApplyError(Exception):
    """The candidate could not be applied; the message names the file or hunk."""


def copy_tree(src: Path, dst: Path) -> None:
    """Copy `src` to `dst` (regular files and folders only).

    `.git` entries are left out, whatever their kind. A symlink that stays inside `src` at
    every step (`links.leaves_tree`) is copied as a link; one that points outside, or any
    device, socket or fifo, is refused, since it would let a program reach host files
    through the tree.
    """
    for dirpath, dirnames, filenames in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        target_dir = dst / rel_dir if rel_dir != "." else dst
        target_dir.mkdir(parents=True, exist_ok=True)
        dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".git")]
        # `.git` in any form (a `gitdir:` file, a link) would make the tree a repository whose config
        # `git apply` reads on the host: a filter driver named there is a command it runs.
        for name in list(dirnames) + [f for f in filenames if f != ".git"]:
            full = Path(dirpath) / name
            st = os.lstat(full)
            rel = (Path(rel_dir) / name).as_posix()
            if stat.S_ISLNK(st.st_mode):
                if leaves_tree(src, rel):
                    raise ApplyError(f"{rel}: symlink to {os.readlink(full)!r} points outside the tree; refused")
                if name in dirnames:
                    dirnames.remove(name)
                os.symlink(os.readlink(full), target_dir / name)
            elif stat.S_ISDIR(st.st_mode):
                continue
            elif stat.S_ISREG(st.st_mode):
                shutil.copy2(full, target_dir / name)
            else:
                raise ApplyError(f"{rel}: not a regular file (device, socket or fifo); refused")


def _first_error(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    picked = [ln for ln in lines if re.search(r"error|FAILED|can't find|malformed|No such|rejected|corrupt", ln, re.I)]
    return "; ".join((picked or lines)[:3]) or "unknown reason"


def apply_patch(diff: Path, tree: Path) -> None:
    """Apply `diff` inside `tree` with `git apply`, falling back to `patch -p1`.

    Raises `ApplyError` naming the file and hunk that failed.
    """
    if os.path.lexists(tree / ".git"):
        raise ApplyError(
            "the tree holds a .git entry: git would read it as a repository's (and run the filters "
            "its config names); refused"
        )
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tree.parent), LC_ALL="C")
    git = shutil.which("git")
    git_msg = ""
    if git:
        proc = subprocess.run(
            [git, "apply", "--whitespace=nowarn", "-p1", str(diff)],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0:
            return
        git_msg = _first_error(proc.stderr)
    patch = shutil.which("patch")
    if patch:
        proc = subprocess.run(
            [patch, "--batch", "--forward", "-p1", "--no-backup-if-mismatch", "-r", "-", "-i", str(diff)],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if proc.returncode == 0:
            return
        patch_msg = _first_error(proc.stdout + "\n" + proc.stderr)
        raise ApplyError(
            f"the diff does not apply: {git_msg or patch_msg}" + (f" (patch: {patch_msg})" if git_msg else "")
        )
    if not git:
        raise ApplyError("neither git nor patch is installed; cannot apply diffs")
    raise ApplyError(f"the diff does not apply: {git_msg}")


def apply_overlay(overlay: Path, tree: Path, initial: Path) -> dict[str, set[int]]:
    """Copy the overlay's files over `tree`; return the lines each file changes vs `initial`.

    Only regular files and folders are accepted: a symlink or a device node in
    the overlay is refused before anything is copied.
    """
    files: list[str] = []
    for dirpath, dirnames, filenames in os.walk(overlay):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(overlay).as_posix()
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                raise ApplyError(
                    f"overlay file {rel!r} is a symlink (to {os.readlink(full)!r}); only regular files are allowed"
                )
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                raise ApplyError(f"overlay entry {rel!r} is not a regular file (device, socket or fifo); refused")
            try:
                check_path(rel)
            except UnsafeDiff as exc:
                raise ApplyError(str(exc)) from None
            if stat.S_ISREG(st.st_mode):
                files.append(rel)
    changed: dict[str, set[int]] = {}
    for rel in files:
        dest = tree / rel
        if dest.is_symlink():
            raise ApplyError(f"overlay file {rel!r} would replace a symlink of the initial state; refused")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            dest.unlink()  # never written in place: it may be a file the initial state's tree shares
        shutil.copyfile(overlay / rel, dest)
        changed[rel] = _changed_lines(initial / rel, overlay / rel)
    return changed


def _changed_lines(old: Path, new: Path) -> set[int]:
    try:
        new_lines = new.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return set()
    try:
        old_lines = old.read_text(encoding="utf-8", errors="replace").splitlines() if old.is_file() else []
    except OSError:
        old_lines = []
    lines: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
        elif tag == "delete":
            lines.add(max(j1, 1))
    return lines

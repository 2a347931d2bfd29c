"""Reading a benchmark's files as they are: bytes, symlinks checked, text only where text is needed.

Benchmarks carry binary test data (`tests/data.png`), CRLF files and the odd
Latin-1 byte, so files are moved as bytes and never re-encoded. A symlink is
kept only when it is relative and stays inside the folder being copied: an
absolute one or one that climbs out would make every program tree reach a host
file (`/etc/passwd`), so it is refused with an error naming the link.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Set
from pathlib import Path

from prism_lsp.tasks.importers.errors import TaskImportError

SKIPPED_DIRS = {".git", "__pycache__"}


def read_text(path: Path, root: Path, what: str = "file") -> str:
    """The file `path` (see `read_file`) as UTF-8 text, line endings untouched; the error names the file."""
    return decode_text(read_file(path, root), path, what)


def decode_text(data: bytes, path: Path | str, what: str = "file") -> str:
    """`data` (the bytes of `path`) as UTF-8 text; the error names the file and the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TaskImportError(
            path, "", f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def check_link(link: Path, root: Path) -> str:
    """The target of the symlink `link` when it is relative and resolves inside `root`, else a `TaskImportError`."""
    target = os.readlink(link)
    if os.path.isabs(target):
        raise TaskImportError(
            link,
            "",
            f"symlink to the absolute path {target!r}; refused (a program tree "
            "may only link inside itself; replace it with the file or a relative link)",
        )
    if not (link.parent / target).resolve().is_relative_to(root.resolve()):
        raise TaskImportError(link, "", f"symlink to {target!r} points outside {root}; refused")
    return target


def copy_folder(src: Path, dest: Path, *, skip: Set[str] = frozenset()) -> None:
    """Copy `src` into `dest`: files as bytes, safe symlinks as links; top-level names in `skip` left out."""
    root = src.resolve()
    for dirpath, dirnames, filenames in os.walk(src):
        here = Path(dirpath)
        rel_dir = here.relative_to(src)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not (rel_dir == Path(".") and d in skip))
        (dest / rel_dir).mkdir(parents=True, exist_ok=True)
        for name in [*dirnames, *filenames]:
            if (rel_dir == Path(".") and name in skip) or name == ".git":  # a `.git` file: a submodule's pointer
                continue
            full, out = here / name, dest / rel_dir / name
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(check_link(full, root), out)
                if name in dirnames:
                    dirnames.remove(name)  # a linked folder is copied as the link, not walked
            elif stat.S_ISREG(mode):
                shutil.copy2(full, out)
            elif not stat.S_ISDIR(mode):
                raise TaskImportError(full, "", "not a regular file (device, socket or fifo); refused")


def read_file(path: Path, root: Path) -> bytes:
    """The bytes of the file `path` (inside `root`); a symlink is read through only when it stays inside `root`."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        check_link(path, root)
        if path.is_dir():
            raise TaskImportError(path, "", "a symlinked folder is not supported here; make it a real folder")
        if not path.is_file():
            raise TaskImportError(path, "", f"dangling symlink (to {os.readlink(path)!r})")
    elif not stat.S_ISREG(mode):
        raise TaskImportError(path, "", "not a regular file (device, socket or fifo); refused")
    return path.read_bytes()


def read_files(folder: Path, root: Path) -> dict[str, bytes]:
    """Every file under `folder` as bytes (see `read_file`), keyed by its path relative to `root`."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(folder):  # os.walk does not follow symlinked folders
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        links = [d for d in dirnames if (here / d).is_symlink()]
        for name in [*links, *sorted(filenames)]:
            out[(here / name).relative_to(root).as_posix()] = read_file(here / name, root)
    return out

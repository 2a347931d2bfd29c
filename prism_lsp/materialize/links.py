"""Links inside a program tree: judged against the finished tree, never written through.

A link checked when it is written can look inside only because what it names does not exist yet:
`l0 -> l1/..` is `.` while `l1` is missing, and five folders up once `l1 -> l2/..` … `l5 -> .`
exist. So a tree's links are checked once it is complete, each resolved step by step through the
tree's own links, never above its root at any step (a link that leaves and comes back means
something else once the tree is copied elsewhere), never absolute. Writing into a tree goes
through `write_target`, which refuses a folder on the way that is a link.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

MAX_HOPS = 40  # the kernel's own limit on links followed in one lookup (ELOOP)


class UnsafeLink(ValueError):
    """A link would reach outside the tree, or a write would go through one; the message names it."""


def leaves_tree(root: Path, rel: str) -> str | None:
    """Why the path `rel` of the tree at `root`, followed through the tree's links, leaves it; None when
    it stays inside at every step."""
    pending = list(PurePosixPath(rel).parts)
    stack: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not stack:
                return "it goes above the tree's root"
            stack.pop()
            continue
        stack.append(part)
        path = root.joinpath(*stack)
        if not path.is_symlink():
            continue
        hops += 1
        if hops > MAX_HOPS:
            return f"more than {MAX_HOPS} links to follow (a loop)"
        target = os.readlink(path)
        if os.path.isabs(target):
            return f"{'/'.join(stack)} links to the absolute path {target!r}"
        stack.pop()
        pending = list(PurePosixPath(target).parts) + pending
    return None


def check_links(root: Path) -> None:
    """Raise `UnsafeLink` for the first link of the finished tree at `root` that leads outside it."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted([*dirnames, *filenames]):
            path = Path(dirpath) / name
            if path.is_symlink():
                rel = path.relative_to(root).as_posix()
                why = leaves_tree(root, rel)
                if why:
                    raise UnsafeLink(
                        f"{rel!r} links to {os.readlink(path)!r}, outside the tree once it is "
                        f"complete ({why}); refused: a program tree may only link inside itself"
                    )


def write_target(root: Path, rel: str) -> Path:
    """The path to write the file `rel` of the tree at `root` to: its folders made, none of them a link
    (`UnsafeLink` otherwise); a file or link already at `rel` removed (the new file replaces it)."""
    parts = PurePosixPath(rel).parts
    if not parts or any(p in ("", ".", "..") for p in parts) or rel.startswith("/"):
        raise UnsafeLink(f"{rel!r} is not a plain path inside the tree; refused")
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise UnsafeLink(
                f"{rel!r}: {folder.relative_to(root).as_posix()} is a link in the tree; refused "
                "(Prism never writes through a link)"
            )
        if not folder.exists():
            folder.mkdir()
        elif not folder.is_dir():
            raise UnsafeLink(f"{rel!r}: {folder.relative_to(root).as_posix()} is a file in the tree, not a folder")
    target = folder / parts[-1]
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        raise UnsafeLink(f"{rel!r} is a folder in the tree, not a file")
    return target

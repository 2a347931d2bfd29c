"""Which host folders a task's own interpreter may add to the bubblewrap sandbox.

A task folder is untrusted, and its `python` decides folders that get bound into the
sandbox: the venv it names and the `home` in that venv's pyvenv.cfg. Bound read-only, a
folder still lets a program connect() to any Unix socket or open any FIFO inside it (the
Docker daemon's socket in /run is root on the host), and read whatever the user keeps
there. So an interpreter named by a task is shown only when each of its folders is:

- a Python installation: a venv root (pyvenv.cfg) or a prefix with `bin/` and `lib/python*`
  (never the bare folder a loose binary sits in, which may be ~/bin or /run);
- absolute, and neither `/`, nor inside /proc, /sys, /dev or /run, nor equal to or above a
  folder holding host state (/tmp, /var, /home, /root, $HOME, the tree cache...);
- free of sockets, FIFOs and device nodes (checked entry by entry, up to `MAX_ENTRIES`).

The interpreter Prism itself runs on (whoever starts Prism chose it) is not checked.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from prism_lsp.sandbox.base import SandboxUnavailable

# Host state lives inside these: nothing in them is ever shown for a task's interpreter.
INSIDE_DENIED = ("/proc", "/sys", "/dev", "/run", "/var/run", "/var/lib", "/var/spool", "/etc")
# These hold other people's files, other runs' sockets or the panel's trees: never shown whole
# (a venv somewhere below them is fine, its folder is checked on its own).
WHOLE_DENIED = (
    "/",
    "/tmp",
    "/var",
    "/var/tmp",
    "/dev/shm",
    "/home",
    "/root",
    "/srv",
    "/mnt",
    "/media",
    "/opt",
    "/nix",
    "/gnu",
)
# A bigger folder is not scanned to the end: refused rather than shown unchecked.
MAX_ENTRIES = 200_000


class InterpreterRefused(SandboxUnavailable):
    """A task's `python` would show host folders the sandbox must not; the message says which and why."""


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def _denied_roots(keep_out: list[Path]) -> tuple[list[Path], list[Path]]:
    inside = [_real(p) for p in INSIDE_DENIED]
    whole = [_real(p) for p in WHOLE_DENIED] + [_real(os.path.expanduser("~"))] + [_real(p) for p in keep_out]
    return inside, whole


@functools.lru_cache(maxsize=64)
def _special_entry(folder: Path) -> str | None:
    """The first socket, FIFO or device node under `folder` (links not followed), or why it was not checked.

    Remembered for the process: a Python installation takes ~0.4 s to walk (60k entries), and
    every runner start would pay it. A socket a host process makes there later is not seen."""
    count = 0
    stack = [str(folder)]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue  # unreadable here: bwrap (same user) cannot show it either
        for entry in entries:
            count += 1
            if count > MAX_ENTRIES:
                return f"more than {MAX_ENTRIES} entries to check"
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif not entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                kind = "socket" if stat.S_ISSOCK(mode) else "FIFO" if stat.S_ISFIFO(mode) else "device node"
                return f"it holds a {kind} ({entry.path})"
    return None


def check_folder(folder: Path, python: str, keep_out: list[Path]) -> None:
    """Raise `InterpreterRefused` unless `folder` (a real path) may be shown for the task's `python`."""
    inside, whole = _denied_roots(keep_out)
    why = None
    if not folder.is_absolute():
        why = "it is not an absolute path"
    elif any(folder == d or folder.is_relative_to(d) for d in inside):
        why = "it lies in a folder of host state (/proc, /sys, /dev, /run, /var/lib, /etc...)"
    elif any(d.is_relative_to(folder) for d in whole):
        why = "it is or contains a folder of host state, other users' files or other programs' trees"
    else:
        why = _special_entry(folder)
    if why:
        raise InterpreterRefused(
            f"{python!r} would show {folder} in the sandbox, refused: {why}. A task's interpreter "
            "must be a venv or Python installation of its own (bin/ and lib/python*), holding no sockets, FIFOs or "
            "devices, outside /proc, /sys, /dev and /run; or leave `python` out to use Prism's own"
        )


def installation(exe: Path, python: str) -> Path:
    """The installation folder of an untrusted interpreter binary: `<prefix>` of `<prefix>/bin/python`
    next to `<prefix>/lib/python*`; anything else is refused."""
    folder = _real(exe.parent)
    if folder.name == "bin" and any((folder.parent / "lib").glob("python*")):
        return folder.parent
    raise InterpreterRefused(
        f"{python!r}: {exe} is not inside a Python installation (<prefix>/bin next to "
        "<prefix>/lib/python*), so the sandbox would have to show the whole folder it sits in; refused"
    )

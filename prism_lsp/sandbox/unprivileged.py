"""Start bwrap as an unprivileged uid when Prism runs as root (run as a script: stdlib only).

As root, bwrap maps the sandbox's user to host root: a program inside, even without
capabilities, owns every root-owned host file it can see (/etc/shadow, the root-only files
of /etc and of the bound folders). So Prism, as root, starts bwrap as a uid of its own with
no groups, like any unprivileged user; the runner is then that uid in its user namespace.

That uid cannot walk through root's 0700 folders (/root, /tmp/pytest-of-root) to the folders
bwrap must bind (a pyenv Python in /root, the tree cache). So before dropping root this
launcher enters a private mount namespace and binds each of those folders onto an empty
0755 folder of a staging directory; bwrap then binds the staging folders to their real
paths. The staging binds exist in this process's mount namespace only: the host sees
empty folders.

Usage: python -I -S unprivileged.py UID STAGE=SOURCE... -- BWRAP ARGS...
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18


def _mount(libc, source: str | None, target: str, flags: int) -> None:
    if libc.mount(source and source.encode(), target.encode(), None, flags, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def main(argv: list[str]) -> None:
    uid = int(argv[0])
    split = argv.index("--")
    stages = [arg.split("=", 1) for arg in argv[1:split]]
    command = argv[split + 1:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    _mount(libc, None, "/", MS_REC | MS_PRIVATE)  # nothing below propagates back to the host
    for stage, source in stages:
        _mount(libc, source, stage, MS_BIND | MS_REC)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    os.execv(command[0], command)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except OSError as exc:
        print(f"prism: cannot start the sandbox as an unprivileged user: {exc}", file=sys.stderr)
        sys.exit(125)

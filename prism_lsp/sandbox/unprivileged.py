"""Start bwrap as an unprivileged uid when Prism runs as root (run as a script: stdlib only).

As root, bwrap maps the sandbox's user to host root: a program inside, even without
capabilities, owns every root-owned host file it can see (/etc/shadow, the root-only files
of /etc and of the bound folders). So Prism, as root, starts bwrap as a uid of its own with
no groups, like any unprivileged user; the runner is then that uid in its user namespace.

That uid cannot walk through root's 0700 folders (/root, /tmp/pytest-of-root) to the folders
bwrap must bind (a pyenv Python in /root, the tree cache). So before dropping root this
launcher opens each of those folders, enters a private mount namespace, mounts a small
tmpfs over /tmp there and binds each opened folder onto `STAGE/<i>` in it; bwrap then binds
the staged folders to their real paths. All of this exists in this process's mount
namespace only: the host sees nothing, and nothing is left to clean up.

Root without CAP_SYS_ADMIN (the usual devcontainer or CI container, where seccomp and AppArmor
let bwrap make user namespaces) may not make a mount namespace of its own. There the launcher
makes a user namespace with it, mapping only host root (itself, so it can still walk through
root's 0700 folders to open them) and the sandbox uid; a forked helper, still outside with
CAP_SETUID, writes the maps. It then drops to the sandbox uid exactly as above: from there on it
holds no capability in that namespace, and bwrap makes its own nested one as that uid, in which
host root is not mapped at all.

Usage: python -I -S unprivileged.py UID SOURCE... -- BWRAP ARGS...  (SOURCE i is staged at STAGE/i)
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

STAGE = "/tmp/prism-stage"
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18


def _mount(libc, source: str | None, target: str, flags: int) -> None:
    if libc.mount(source and source.encode(), target.encode(), None, flags, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {source} on {target}: {os.strerror(err)}")


def _private_mount_namespace(libc, uid: int) -> None:
    """A mount namespace of this process's own: plain where root may make one, else with a user
    namespace (root without CAP_SYS_ADMIN, in a container)."""
    if libc.unshare(CLONE_NEWNS) == 0:
        return
    err = ctypes.get_errno()
    if err != errno.EPERM:
        raise OSError(err, f"unshare(CLONE_NEWNS): {os.strerror(err)}")
    _user_and_mount_namespace(libc, uid)


def _user_and_mount_namespace(libc, uid: int) -> None:
    """unshare(CLONE_NEWUSER | CLONE_NEWNS), its uid and gid maps written from outside: host root
    (this process, for the opens) and `uid` (what it becomes), nothing else."""
    me = os.getpid()
    ready_r, ready_w = os.pipe()
    helper = os.fork()
    if helper == 0:  # outside the new namespace: only a process there may map host root into it
        os.close(ready_w)
        try:
            if os.read(ready_r, 1) != b"1":
                os._exit(1)
            for name in ("uid_map", "gid_map"):
                with open(f"/proc/{me}/{name}", "w") as f:
                    f.write(f"0 0 1\n{uid} {uid} 1\n")
            os._exit(0)
        except BaseException as exc:
            os.write(2, f"prism: cannot map the sandbox uid: {exc}\n".encode())
            os._exit(1)
    os.close(ready_r)
    made = libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0
    err = ctypes.get_errno()
    os.write(ready_w, b"1" if made else b"0")
    os.close(ready_w)
    _, status = os.waitpid(helper, 0)
    if not made:
        raise OSError(
            err,
            f"unshare(CLONE_NEWNS): {os.strerror(errno.EPERM)}, and "
            f"unshare(CLONE_NEWUSER | CLONE_NEWNS): {os.strerror(err)}",
        )
    if status != 0:
        raise OSError(errno.EPERM, "the user namespace's uid and gid maps could not be written")


def main(argv: list[str]) -> None:
    uid = int(argv[0])
    split = argv.index("--")
    command = argv[split + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)
    _private_mount_namespace(libc, uid)
    _mount(libc, None, "/", MS_REC | MS_PRIVATE)  # nothing below propagates back to the host
    # Opened in the new namespace (a bind's source must be in it), before /tmp is covered:
    # a source may lie under the host's /tmp.
    sources = [os.open(source, os.O_PATH | os.O_DIRECTORY) for source in argv[1:split]]
    if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"mode=0755,size=64k") != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount tmpfs on /tmp: {os.strerror(err)}")
    os.mkdir(STAGE, 0o755)
    for i, fd in enumerate(sources):
        os.mkdir(f"{STAGE}/{i}", 0o755)
        _mount(libc, f"/proc/self/fd/{fd}", f"{STAGE}/{i}", MS_BIND | MS_REC)
        os.close(fd)
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

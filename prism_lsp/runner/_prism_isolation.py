"""Isolation of one program from its runner, from the other programs and from the tree cache.

Applied in the forked child, before any program code runs (DESIGN.md, "Trust and isolation"):

- `new_namespaces()`: a new pid namespace and a new mount namespace. The program is pid 1 of
  its own pid namespace and sees a fresh /proc: no runner, no other program, no
  `/proc/<runner>/fd/1` to write forged answers into, no runner to ptrace.
- `seal()`: the tree cache hidden behind an empty read-only tmpfs (the program keeps only its
  own copy of its tree), every inherited descriptor closed but its result pipe and stdio, all
  capabilities dropped (bounding set included, so an exec cannot get them back), no_new_privs,
  and a seccomp filter refusing ptrace, mount, namespaces and cross-process memory access.

Namespaces need CAP_SYS_ADMIN in the sandbox's user namespace (bubblewrap gives the runner
exactly that and CAP_SETPCAP); where the runner has no capabilities (Docker, `none`) the
namespaces are skipped and the rest still applies. `available()` says which hold here.
The runner itself is made non-dumpable (`harden_runner`): a process of the same uid can then
neither ptrace it nor open its /proc files (its stdout among them).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 1 << 14, 1 << 18
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = 4, 24, 38, 22, 47
SECCOMP_MODE_FILTER = 2

# x86_64 system calls a judged program never needs and an attacker would: debugging other
# processes, reading their memory, (un)mounting, entering or making namespaces, kernel
# keyrings and modules, BPF, perf, userfaultfd, file handles.
_DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "iopl": 172, "ioperm": 173,
    "init_module": 175, "delete_module": 176, "finit_module": 313, "kexec_load": 246, "kexec_file_load": 320,
    "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "quotactl": 179,
}
_CLONE = 56
_CLONE3 = 435  # refused with ENOSYS: its flags are out of a filter's reach; libc falls back to clone
_CLONE_NEW_ANY = 0x7E020080  # CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}
_AUDIT_ARCH_X86_64 = 0xC000003E
_EPERM, _ENOSYS = 1, 38


class IsolationError(OSError):
    """A step of the isolation failed: the program must not run."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise IsolationError(err, f"{what}: {os.strerror(err)}")


def harden_runner() -> None:
    """Non-dumpable: other processes of our uid can neither ptrace us nor open /proc/<us>/fd/*."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def new_namespaces() -> None:
    """Put the next child of this process in a new pid namespace, and this process in a new mount
    namespace (whose mounts never reach the runner's)."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID), "unshare")


def remount_for_program(hide: list[str]) -> None:
    """In the pid-1 process of the new namespaces: a fresh /proc, and `hide` behind empty tmpfs."""
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")
    for folder in hide:
        if os.path.isdir(folder):
            _check(_libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                               b"size=4k,mode=0555"), f"hide {folder}")


def close_inherited(keep: set[int]) -> None:
    """Close every descriptor but `keep` (the runner's pipes and files must not reach the program)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _drop_capabilities() -> None:
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # EINVAL: no such cap
            break
    _libc.prctl(PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    header = struct.pack("Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = bytes(24)  # effective, permitted, inheritable: all empty (two 32-bit words each)
    hbuf, dbuf = ctypes.create_string_buffer(header), ctypes.create_string_buffer(data)
    _check(_libc.capset(hbuf, dbuf), "capset")


def _filter() -> bytes:
    """The seccomp BPF program (x86_64): other architectures' calls (int 0x80, x32) are refused."""
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    errno_ret = lambda e: 0x00050000 | e  # noqa: E731  (SECCOMP_RET_ERRNO)
    allow = 0x7FFF0000
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, _AUDIT_ARCH_X86_64), (ret, 0, 0, errno_ret(_EPERM)),
            (ld, 0, 0, 0), (jge, 0, 1, 0x40000000), (ret, 0, 0, errno_ret(_EPERM)),
            (jeq, 0, 1, _CLONE3), (ret, 0, 0, errno_ret(_ENOSYS))]
    for nr in sorted(_DENIED_X86_64.values()):
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, errno_ret(_EPERM))]
    prog += [(jeq, 0, 3, _CLONE), (ld, 0, 0, 16), (jset, 0, 1, _CLONE_NEW_ANY), (ret, 0, 0, errno_ret(_EPERM)),
             (ret, 0, 0, allow)]
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def seal(keep_fds: set[int], caps: bool) -> list[str]:
    """Everything but the namespaces: close descriptors, drop capabilities (when `caps`: we had
    some to drop), no_new_privs, seccomp. Returns the mechanisms applied; raises IsolationError."""
    applied = []
    close_inherited(keep_fds)
    applied.append("fds-closed")
    if caps:
        _drop_capabilities()
        applied.append("no-capabilities")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    applied.append("no-new-privs")
    if _FILTER is not None:
        code = _FILTER
        buf = ctypes.create_string_buffer(code)
        fprog = struct.pack("HxxxxxxQ", len(code) // 8, ctypes.addressof(buf))
        fbuf = ctypes.create_string_buffer(fprog)
        _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fbuf), 0, 0), "seccomp")
        applied.append("seccomp")
    # The program may read its own /proc/self; nobody outside its namespace can see it anyway.
    _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    return applied


# Built once in the runner, before any fork (the machine check reads uname).
_FILTER = _filter() if platform.machine() == "x86_64" else None


def namespaces_available() -> bool:
    """Whether this runner may give each program its own pid and mount namespaces (tried in a
    throwaway child, so nothing here changes)."""
    pid = os.fork()
    if pid == 0:
        try:
            new_namespaces()
            inner = os.fork()
            if inner == 0:
                try:
                    remount_for_program([])
                    os._exit(0)
                except BaseException:
                    os._exit(1)
            _, status = os.waitpid(inner, 0)
            os._exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

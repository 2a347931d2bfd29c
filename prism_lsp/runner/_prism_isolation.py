"""Isolation of one program from its runner, from the other programs and from the tree cache.

Where the runner may make namespaces (bubblewrap gives it CAP_SYS_ADMIN in the sandbox's own user
namespace), it becomes, once at start-up, the init (pid 1) of new pid and mount namespaces
(`enter_runner_namespaces`): a fresh /proc mounted `hidepid=invisible`, so a program sees no
process it may not ptrace (the non-dumpable runner included), and the tree cache hidden behind an
empty read-only tmpfs (the runner keeps a descriptor of it and copies each program's tree through
that; the program's copy of the descriptor is closed by the seal). Each program is then a plain
forked child of the runner (DESIGN.md, "Trust and isolation", asked for new namespaces per program;
measured, that cost three processes and ~9 of a ~38 ms program, and a per-runner namespace holds
the same lines):

- only one program runs in a runner at a time, and when it ends the runner kills every other
  process of its namespace at once (`kill(-1)` as its init) and reaps them: nothing of a program
  outlives it, nothing reaches the next one;
- the next program is pid 2 again (`next_program_is_pid_2`: the namespace's pid counter is reset),
  so pids never tell a program how many ran before it in its runner;
- each program gets its own IPC namespace (`new_ipc_namespace`, in the child): System V objects
  and POSIX message queues of one program never reach the next;
- the runner, pid 1 of the namespace, ignores every signal sent from inside it (it keeps no
  handler), is non-dumpable, and is invisible in the programs' /proc.

`seal()` then closes every inherited descriptor but the result pipe and stdio, drops all
capabilities (bounding set included, so an exec cannot get them back), sets no_new_privs and a
seccomp filter refusing ptrace, mount, namespaces and cross-process memory access. The filter has a
table for x86_64 and aarch64 only: elsewhere no program gets one, and `seccomp_installed()` says so
(the runner reports it in its Ready message, and `prism doctor` prints what the runner reported).

Where the runner has no capabilities (Docker, `none`) there are no namespaces and the rest still
applies; the seccomp filter then also refuses System V IPC and POSIX message queues, which would
otherwise pass from one program to the next (or to another runner's) with no IPC namespace per
program to keep them apart. `namespaces_available()` says which holds here.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import struct
import sys

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWIPC = 0x00020000, 0x20000000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 1 << 14, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAP_AMBIENT = (
    1,
    4,
    24,
    38,
    22,
    47,
)
O_PATH = getattr(os, "O_PATH", 0o10000000)
_NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
SECCOMP_MODE_FILTER = 2

# System calls a judged program never needs and an attacker would: debugging other processes,
# reading their memory, (un)mounting, entering or making namespaces, kernel keyrings and modules,
# BPF, perf, userfaultfd, file handles. One table per architecture the filter knows (numbers from
# arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h, which aarch64 uses);
# iopl and ioperm exist on x86 only.
_DENIED = {
    "x86_64": {
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "kcmp": 312,
        "pidfd_getfd": 438,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
        "unshare": 272,
        "setns": 308,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "acct": 163,
        "iopl": 172,
        "ioperm": 173,
        "init_module": 175,
        "delete_module": 176,
        "finit_module": 313,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "bpf": 321,
        "perf_event_open": 298,
        "userfaultfd": 323,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "quotactl": 179,
    },
    "aarch64": {
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "kcmp": 272,
        "pidfd_getfd": 438,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "chroot": 51,
        "unshare": 97,
        "setns": 268,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "swapon": 224,
        "swapoff": 225,
        "reboot": 142,
        "acct": 89,
        "init_module": 105,
        "delete_module": 106,
        "finit_module": 273,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "bpf": 280,
        "perf_event_open": 241,
        "userfaultfd": 282,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "quotactl": 60,
    },
}
X86_ONLY = frozenset({"iopl", "ioperm"})
# System V IPC and POSIX message queues outlive the processes that made them, and their ids and
# names are guessable: where a program has no IPC namespace of its own (Docker, `none`: its runner
# could not make one), they would pass messages to the next program or to another runner's.
_IPC = {
    "x86_64": {
        "shmget": 29,
        "shmat": 30,
        "shmctl": 31,
        "shmdt": 67,
        "semget": 64,
        "semop": 65,
        "semctl": 66,
        "semtimedop": 220,
        "msgget": 68,
        "msgsnd": 69,
        "msgrcv": 70,
        "msgctl": 71,
        "mq_open": 240,
        "mq_unlink": 241,
        "mq_timedsend": 242,
        "mq_timedreceive": 243,
        "mq_notify": 244,
        "mq_getsetattr": 245,
    },
    "aarch64": {
        "shmget": 194,
        "shmat": 196,
        "shmctl": 195,
        "shmdt": 197,
        "semget": 190,
        "semop": 193,
        "semctl": 191,
        "semtimedop": 192,
        "msgget": 186,
        "msgsnd": 189,
        "msgrcv": 188,
        "msgctl": 187,
        "mq_open": 180,
        "mq_unlink": 181,
        "mq_timedsend": 182,
        "mq_timedreceive": 183,
        "mq_notify": 184,
        "mq_getsetattr": 185,
    },
}
# clone (its flags checked: no new namespaces) and clone3 (refused with ENOSYS: its flags are out of
# a filter's reach; libc falls back to clone), and the AUDIT_ARCH_* a call of this table carries.
_CLONE = {"x86_64": 56, "aarch64": 220}
_CLONE3 = {"x86_64": 435, "aarch64": 435}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_CLONE_NEW_ANY = 0x7E020080  # CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}
_EPERM, _ENOSYS = 1, 38
SECCOMP_ARCHITECTURES = tuple(_AUDIT_ARCH)


class IsolationError(OSError):
    """A step of the isolation failed: the program must not run."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise IsolationError(err, f"{what}: {os.strerror(err)}")


def harden_runner() -> None:
    """Non-dumpable: other processes of our uid can neither ptrace us nor open /proc/<us>/fd/*."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def enter_runner_namespaces(hide: list[str], bare_waiter: bool = True) -> dict[str, int]:
    """Make the runner the init of new pid and mount namespaces; returns {hidden folder: descriptor}.

    The calling process forks: its child, pid 1 of the new pid namespace, returns from here and
    goes on as the runner; the caller stays outside, holding nothing of the protocol, and ends
    with the runner's status (`_stand_outside`; as a bare interpreter when `bare_waiter`). In the namespaces: /proc is fresh and mounted
    `hidepid=invisible`, and each `hide` folder is covered by an empty read-only tmpfs after a
    descriptor of it was opened (the runner reads the trees through `/proc/self/fd/<fd>`).
    Raises IsolationError before the fork when the namespaces cannot be made; after it, a failed
    step ends the runner (it must never run programs half isolated).
    """
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID), "unshare")
    runner = os.fork()
    if runner != 0:
        _stand_outside(runner, bare_waiter)
    try:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # The init of a namespace gets no signal from inside it that it has no handler for:
        # with none (Python's SIGINT one removed), no program can stop or kill its runner.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make mounts private")
        _mount_proc()
        hidden = {}
        for folder in hide:
            if os.path.isdir(folder):
                hidden[folder] = os.open(folder, O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
                _check(
                    _libc.mount(
                        b"tmpfs",
                        os.fsencode(folder),
                        b"tmpfs",
                        MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                        b"size=4k,mode=0555",
                    ),
                    f"hide {folder}",
                )
        next_program_is_pid_2()
        return hidden
    except BaseException as exc:
        os.write(2, f"prism runner: cannot isolate programs: {exc}\n".encode())
        os._exit(71)


def _mount_proc() -> None:
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if _libc.mount(b"proc", b"/proc", b"proc", flags, b"hidepid=invisible") != 0:
        _check(_libc.mount(b"proc", b"/proc", b"proc", flags, b"hidepid=2"), "mount /proc")  # before Linux 5.8


# What the process outside the namespaces becomes: a bare interpreter that waits for the runner.
# Kept as the forked runner it held a copy of every page the runner later wrote (measured: 12.5 MB
# of private memory after 20 panels, beside the runner's own 15).
_WAITER = """import os, sys
runner = int(sys.argv[1])
while True:
    try:
        status = os.waitpid(runner, 0)[1]
        break
    except InterruptedError:
        pass
code = os.waitstatus_to_exitcode(status)
os._exit(code if code >= 0 else 128 - code)
"""


def _stand_outside(runner: int, bare: bool) -> None:
    """The process that made the namespaces: it waits for the runner and ends as it ended."""
    for fd in (0, 1):  # the protocol is the runner's alone: its end closes the host's pipes
        os.close(fd)
    if bare:
        try:
            os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", _WAITER, str(runner)])
        except OSError:
            pass  # wait here instead, with the runner's pages
    while True:
        try:
            _, status = os.waitpid(runner, 0)
            break
        except InterruptedError:
            continue
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def next_program_is_pid_2() -> None:
    """In the runner (its namespace's init): the next process forked gets pid 2, as the first
    process of a fresh namespace would; pids never count the programs that ran before."""
    fd = os.open(_NS_LAST_PID, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, b"1")
    finally:
        os.close(fd)


def new_ipc_namespace() -> None:
    """In the program's process, before the seal: System V IPC and POSIX message queues of its own."""
    _check(_libc.unshare(CLONE_NEWIPC), "unshare ipc")


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


def seccomp_filter(machine: str, own_ipc: bool) -> bytes | None:
    """The seccomp BPF program for `machine` (`platform.machine()`), or None when Prism has no
    table for it: the caller must then not claim a filter (`seccomp_installed`)."""
    if machine not in _AUDIT_ARCH:
        return None
    denied = _DENIED[machine] if own_ipc else {**_DENIED[machine], **_IPC[machine]}
    return _filter(machine, denied)


def _filter(machine: str, denied: dict[str, int]) -> bytes:
    """The program refusing `denied`; calls of another architecture (x86's int 0x80, aarch64's
    32-bit compat) carry another AUDIT_ARCH and are refused whole, and so are x32 numbers
    (>= 0x40000000, which no aarch64 call reaches)."""
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    errno_ret = lambda e: 0x00050000 | e  # noqa: E731  (SECCOMP_RET_ERRNO)
    allow = 0x7FFF0000
    prog = [
        (ld, 0, 0, 4),
        (jeq, 1, 0, _AUDIT_ARCH[machine]),
        (ret, 0, 0, errno_ret(_EPERM)),
        (ld, 0, 0, 0),
        (jge, 0, 1, 0x40000000),
        (ret, 0, 0, errno_ret(_EPERM)),
        (jeq, 0, 1, _CLONE3[machine]),
        (ret, 0, 0, errno_ret(_ENOSYS)),
    ]
    for nr in sorted(denied.values()):
        prog += [(jeq, 0, 1, nr), (ret, 0, 0, errno_ret(_EPERM))]
    # clone's flags are its first argument on both (seccomp_data.args[0], low word, little-endian).
    prog += [
        (jeq, 0, 3, _CLONE[machine]),
        (ld, 0, 0, 16),
        (jset, 0, 1, _CLONE_NEW_ANY),
        (ret, 0, 0, errno_ret(_EPERM)),
        (ret, 0, 0, allow),
    ]
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def seal(keep_fds: set[int], caps: bool, own_ipc: bool) -> list[str]:
    """Everything but the namespaces: close descriptors, drop capabilities (when `caps`: we had
    some to drop), no_new_privs, seccomp (refusing System V IPC and message queues unless `own_ipc`:
    the program has an IPC namespace of its own). Returns the mechanisms applied; raises IsolationError."""
    applied = []
    close_inherited(keep_fds)
    applied.append("fds-closed")
    if caps:
        _drop_capabilities()
        applied.append("no-capabilities")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    applied.append("no-new-privs")
    code = _FILTERS.get(own_ipc)
    if code is not None:
        buf = ctypes.create_string_buffer(code)
        fprog = struct.pack("HxxxxxxQ", len(code) // 8, ctypes.addressof(buf))
        fbuf = ctypes.create_string_buffer(fprog)
        _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fbuf), 0, 0), "seccomp")
        applied.append("seccomp" if own_ipc else "seccomp-no-ipc")
    # The program may read its own /proc/self; nobody outside its namespace can see it anyway.
    _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    return applied


# Built once in the runner, before any fork (the machine check reads uname); keyed by `own_ipc`.
# Empty on an architecture without a table: then no program gets a filter, and the runner says so.
MACHINE = platform.machine()
_FILTERS = {own_ipc: code for own_ipc in (True, False) if (code := seccomp_filter(MACHINE, own_ipc)) is not None}


def seccomp_installed() -> bool:
    """Whether `seal` installs a seccomp filter on this machine (what the runner reports in Ready)."""
    return bool(_FILTERS)


def namespaces_available() -> bool:
    """Whether this runner may be the init of its own pid and mount namespaces and give each program
    an IPC namespace: every step of `enter_runner_namespaces` and of a program's child, tried in
    throwaway children, so nothing here changes."""
    pid = os.fork()
    if pid == 0:
        try:
            # Not the runner's protocol, nor its log: a refusal here is an answer, not an error.
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            enter_runner_namespaces([], bare_waiter=False)  # a waiter for milliseconds: no interpreter start
            program = os.fork()
            if program == 0:
                new_ipc_namespace()
                os._exit(0 if os.getpid() == 2 else 1)
            _, status = os.waitpid(program, 0)
            os._exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

"""The limits Prism puts on a program (memory, processes and threads, output), and what a test's
exception says when the program ran into one of them.

A limit Prism enforced is never a finding against the suite: a test that raised because the
program reached one is an `error` whose reason names the limit and whose message names the
setting to raise, never a failing test (a failing reference would read as "the suite rejects a
valid candidate"). Memory is bounded by RLIMIT_DATA, the program's private writable memory, not
RLIMIT_AS, its address space: every thread reserves address space for its malloc arena (64 MiB
with glibc) besides its stack, so 1 GiB of address space stopped a program at 19 threads; under
RLIMIT_DATA the same GiB holds 125 idle threads, and an 8 GiB allocation still fails.
"""

from __future__ import annotations

import errno
import os
import resource

# What the author can raise, named in every message about a limit.
MEMORY_SETTING = "the manifest's `memory_mb` ([task] in prism.toml)"
PROCESS_SETTING = "the manifest's `pids_max` ([task] in prism.toml)"
TIME_SETTING = "`--timeout`, the manifest's `timeout_s` or the editor setting `prism.timeoutSeconds`"


def timeout_message(seconds: float, why: str = "") -> str:
    """What a run cut short at Prism's time limit says: the limit and how to raise it."""
    return (
        f"timed out after {seconds:g} s{why}: Prism's time limit per program run (at least the configured one, "
        f"longer when the reference's run is slow); raise it with {TIME_SETTING}"
    )


def _own_user_namespace() -> bool:
    try:
        with open("/proc/self/uid_map") as fh:
            return fh.read().split() != ["0", "0", "4294967295"]
    except OSError:
        return False


# Read once in the runner (each forked child is in the same user namespace): measured at a
# millisecond a program when each child imported `resource` and read its uid map itself.
IN_OWN_USER_NAMESPACE = _own_user_namespace()


def set_limits(memory_mb: int, output_limit: int, pids_max: int, uid_private: bool) -> None:
    """Cap this process (the program's) at the request's limits; never above a hard limit already set."""

    def cap(kind, value):
        try:
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass

    cap(resource.RLIMIT_DATA, memory_mb * 1024 * 1024)
    cap(resource.RLIMIT_FSIZE, output_limit)
    cap(resource.RLIMIT_CORE, 0)
    # Without a cgroup, the process count is bounded by RLIMIT_NPROC, which the kernel counts
    # per uid in a user namespace: only meaningful (and only safe) inside our own namespace or
    # under a uid given to this runner alone (`--uid-private`, Docker), and not for root,
    # whom the kernel exempts.
    if pids_max and os.getuid() != 0 and (uid_private or IN_OWN_USER_NAMESPACE):
        cap(resource.RLIMIT_NPROC, pids_max)


def _memory_mb() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    return None if soft == resource.RLIM_INFINITY else soft >> 20


def memory_message() -> str:
    mb = _memory_mb()
    size = f" ({mb} MiB)" if mb else ""
    return f"the program ran out of memory: it reached Prism's memory limit per program{size}; raise it with {MEMORY_SETTING}"


def _thread_message() -> tuple[str, str] | None:
    """(reason, message) for a thread that could not start; None when Prism set no limit. Which limit refused it is gone by the
    time the test's report is made (its threads have ended), so the reason is the limit a program
    meets first: each thread's stack (RLIMIT_STACK, 8 MiB) counts against the memory limit."""
    memory, _ = resource.getrlimit(resource.RLIMIT_DATA)
    tasks, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    stack, _ = resource.getrlimit(resource.RLIMIT_STACK)
    stack = stack if stack != resource.RLIM_INFINITY and stack > 0 else 8 << 20
    mb = _memory_mb()
    memory_part = (
        f"Prism's memory limit per program ({mb} MiB; each thread's stack takes {stack >> 20} MiB of it; "
        f"raise it with {MEMORY_SETTING})"
        if mb
        else ""
    )
    tasks_part = (
        f"its limit on processes and threads per sandbox ({tasks}; raise it with {PROCESS_SETTING})"
        if tasks != resource.RLIM_INFINITY
        else ""
    )
    if not (memory_part or tasks_part):
        return None
    reached = " or ".join(p for p in (memory_part, tasks_part) if p)
    by_memory = bool(memory_part) and (not tasks_part or memory // stack < tasks)
    return ("memory" if by_memory else "process-limit", f"the program could not start a thread: it reached {reached}")


def _process_message() -> str:
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    count = f" ({soft})" if soft != resource.RLIM_INFINITY else ""
    return (
        f"the program could not start a process: it reached Prism's limit on processes and threads per "
        f"sandbox{count}; raise it with {PROCESS_SETTING}"
    )


# Functions of the standard library a process is started from, where EAGAIN means "no more processes".
_STARTS_PROCESSES = {"_execute_child", "_fork_exec", "_launch", "_posix_spawn", "fork"}


def limit_reached(exc: BaseException) -> tuple[str, str] | None:
    """(reason, message) when `exc`, raised out of a test, is the mark of a limit Prism put on the
    program; None when it is the program's or the suite's own doing."""
    if isinstance(exc, MemoryError):
        return "memory", memory_message()
    if isinstance(exc, RuntimeError) and str(exc).startswith("can't start new thread"):
        return _thread_message()
    if isinstance(exc, OSError) and exc.errno in (errno.EAGAIN, errno.ENOMEM) and _raised_in(exc, _STARTS_PROCESSES):
        if exc.errno == errno.ENOMEM:
            return "memory", memory_message()
        return "process-limit", _process_message()
    return None


def _raised_in(exc: BaseException, functions: set[str]) -> bool:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    return last in functions

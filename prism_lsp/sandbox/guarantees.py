"""The threat model and what each sandbox backend guarantees, in the words `prism doctor` and README use.

One source for both, so the two cannot drift apart (a test checks README holds every line).
Each line states a property a test checks through the real backend (tests/sandbox,
tests/docker, tests/engine/test_hostile.py).
"""

from __future__ import annotations

TRUSTED = "whoever starts Prism: the command line, settings, environment and the interpreter Prism runs on"
UNTRUSTED = "suites, candidates, task folders (prism.toml with its `python`, image and patches) and editor documents"

# The lines that hold only where the runner installed its seccomp filter (x86_64 and aarch64, the
# architectures `runner/_prism_isolation.py` has a table for), and what holds instead elsewhere.
_SEAL_BUBBLEWRAP = (
    "before any program code runs: inherited descriptors closed, no capabilities, no_new_privs, a "
    "seccomp filter (no ptrace, mount, unshare, setns); results sealed with a per-request secret "
    "the program never sees"
)
_SEAL_DOCKER = (
    "each program sees only its own tree, staged for it in its runner's 0700 folder and cleared after "
    "it; inherited descriptors closed, no_new_privs, the same seccomp filter and sealed results as "
    "bubblewrap (no per-program namespaces: runners have no capabilities there), and System V IPC "
    "and POSIX message queues refused (no IPC namespace per program to keep them apart)"
)
WITHOUT_SECCOMP = {
    _SEAL_BUBBLEWRAP: (
        "before any program code runs: inherited descriptors closed, no capabilities, no_new_privs; NO seccomp "
        "filter (the runner installed none: Prism has a table for x86_64 and aarch64 only), so ptrace, mount, "
        "unshare and setns are refused only for want of capabilities; results sealed with a per-request secret "
        "the program never sees"
    ),
    _SEAL_DOCKER: (
        "each program sees only its own tree, staged for it in its runner's 0700 folder and cleared after "
        "it; inherited descriptors closed, no_new_privs and sealed results as bubblewrap; NO seccomp filter "
        "(the runner installed none: Prism has a table for x86_64 and aarch64 only), so System V IPC and POSIX "
        "message queues are NOT refused and may pass between programs of one runner"
    ),
}

GUARANTEES: dict[str, tuple[str, ...]] = {
    "bubblewrap": (
        "no network; new user, pid, ipc, uts and cgroup namespaces",
        "an empty root showing only the system folders, the interpreter, its packages, the runner and the "
        "tree cache, read-only: no host Unix socket, no /run, /var, /home or /root beyond those paths",
        "a task's `python` adds only its own venv and installation, never a folder holding sockets, FIFOs "
        "or devices, nor /, /proc, /sys, /dev, /run, /tmp, /var, /home, /root or $HOME: otherwise exit 2 "
        "naming task.python",
        "the environment is cleared: only PATH, HOME, TMPDIR, LANG, LANGUAGE, TZ, LC_*, "
        "PYTHONDONTWRITEBYTECODE and PYTHONHASHSEED=0 reach the runner",
        "/tmp and /dev/shm are private tmpfs sized from one budget (Limits.tmpfs_mb: 7/8 and 1/8); $HOME is "
        "an empty read-only tmpfs; /dev is read-only",
        "when Prism runs as root, the runner runs as an unprivileged uid of its own with no groups, also "
        "where root lacks CAP_SYS_ADMIN (a container): root-only host files (/etc/shadow) stay unreadable",
        "memory and process count capped by a per-sandbox cgroup when the machine allows one, else per "
        "program (RLIMIT_DATA, RLIMIT_NPROC)",
        "each program a child of its runner, the init of the runner's own pid and mount namespaces: a fresh "
        "/proc where it sees only its own processes, the tree cache hidden (it sees only its own tree), "
        "pid 2 for every program, every process of a program killed before the next runs, an IPC "
        "namespace per program; it cannot reach the runner, its pipes or another program",
        _SEAL_BUBBLEWRAP,
    ),
    "docker": (
        "no network (network_mode none); one container per runner, so programs running at the same moment "
        "share no /tmp, /dev/shm, abstract socket or IPC object; read-only root where the image allows",
        "only the image, the runner and the container's own staging folder are mounted (read-only): "
        "no tree cache, no other host folder, no host socket",
        "a task's Dockerfile is built with no network and from local images only (never pulled): its RUN "
        "steps reach neither the host nor beyond",
        "no capabilities in the container, root included: the runner runs as a uid of its own (never "
        "root), with a private scratch folder and its own process-count cap; killing it removes its "
        "container",
        "the container's environment is the image's PATH plus the same allowlist as bubblewrap "
        "(PYTHONHASHSEED=0); Prism's own environment does not enter it",
        "/tmp and /dev/shm are tmpfs sized from the same budget; /dev is not writable by runners",
        "memory, process-count and CPU-share limits on each runner's container",
        _SEAL_DOCKER,
    ),
    "none": (
        "nothing: candidates and suites run as you, with your files, network and processes; "
        "only limits per program (time, memory, output). For code you trust only",
    ),
}


def guarantees(seccomp: bool) -> dict[str, tuple[str, ...]]:
    """Every backend's guarantees given whether the runner installed its seccomp filter (the
    `seccomp` mechanism of its Ready message): never a filter that did not run."""
    if seccomp:
        return GUARANTEES
    return {name: tuple(WITHOUT_SECCOMP.get(line, line) for line in lines) for name, lines in GUARANTEES.items()}


def threat_model(seccomp: bool = True) -> dict:
    """The trust split and every backend's guarantees, as `prism doctor --json` reports them."""
    return {
        "trusted": TRUSTED,
        "untrusted": UNTRUSTED,
        "seccomp": seccomp,
        "guarantees": {name: list(lines) for name, lines in guarantees(seccomp).items()},
    }

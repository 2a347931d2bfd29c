"""Find and kill every process a program run left behind.

Where the runner is the init of its own pid namespace (`_prism_isolation`), every other process
in it is a program's: one `kill(-1)` reaches them all at once. Elsewhere the runner is a child
subreaper, so orphans of a program reparent to it and are found by walking parent links in /proc.
"""

from __future__ import annotations

import os
import signal
import time


def descendants(root_pid: int) -> list[int]:
    """Every live process below `root_pid` (orphans reparent to us: we are a subreaper)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents[int(name)] = ppid
    found = []
    for pid in parents:
        p, seen = pid, 0
        while p in parents and seen < 4096:
            p = parents[p]
            seen += 1
            if p == root_pid:
                found.append(pid)
                break
    return found


def reap_all(own_namespace: bool = False) -> None:
    """Kill and reap every process this runner's programs left behind; `own_namespace`: the runner
    is the init of its own pid namespace (never merely pid 1 of a container other runners share)."""
    if own_namespace:
        _end_namespace()
        return
    me = os.getpid()
    for _ in range(50):
        pids = descendants(me)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not pids:
            return
        time.sleep(0.005)


def _end_namespace() -> None:
    """As the namespace's init: kill every other process of it, then reap until none is left. The
    kernel sends the signal to all of them under one lock, and a process with SIGKILL pending can
    no longer fork, so none escapes."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue

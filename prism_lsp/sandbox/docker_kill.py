"""Kill one runner inside a shared container: every process carrying its token, and their descendants.

Killing the local `docker exec` client does not stop the process it started in
the container, and the container is shared by all runners of a task, so it must
not be stopped either. Each runner is started with `PRISM_RUNNER_TOKEN=<token>`
in its environment, which every process it forks inherits; `SCRIPT` runs inside
the container with its Python, stops every process that has the token (or
descends from one that has it, for programs that cleared their environment),
then kills them all. Stopping first means nothing can fork away mid-scan.
"""

from __future__ import annotations

SCRIPT = r"""
import os, signal, sys
token = ("PRISM_RUNNER_TOKEN=" + sys.argv[1]).encode()
me = os.getpid()

def scan():
    parents, marked = {}, set()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        try:
            with open("/proc/%d/stat" % pid, "rb") as fh:
                parents[pid] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            with open("/proc/%d/environ" % pid, "rb") as fh:
                if token in fh.read().split(b"\0"):
                    marked.add(pid)
        except (OSError, IndexError, ValueError):
            continue
    found = set(marked)
    for pid in parents:
        p, depth = pid, 0
        while p in parents and depth < 4096:
            if p in marked:
                found.add(pid)
                break
            p, depth = parents[p], depth + 1
    return found

stopped = set()
for _ in range(50):
    new = scan() - stopped
    if not new:
        break
    for pid in new:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    stopped |= new
for pid in stopped:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
print(len(stopped))
"""

"""Kill one runner inside a shared container: every process running under its uid.

Killing the local `docker exec` client does not stop the process it started in
the container, and the container is shared by all runners of a task, so it must
not be stopped either. Each runner runs under a uid of its own (see
`docker_backend`), which every process it forks keeps: without capabilities a
program can neither change its uid nor hide it (`/proc/<pid>/status` is readable
even for non-dumpable processes), so the uid names the whole runner, daemons and
programs that cleared their environment included.

`SCRIPT` runs inside the container as root, which holds `CAP_KILL` there and
nothing else, so the runner's own processes cannot kill it first (a same-uid
killer could lose that race to a `kill(-1)` loop). It stops every process of
the uid, rescans until nothing new appears (nothing can fork away mid-scan),
then kills them all. It prints how many it killed.
"""

from __future__ import annotations

SCRIPT = r"""
import os, signal, sys
uid = int(sys.argv[1])
if uid == 0:
    sys.exit("refusing to kill root: runners never run as root")
me = os.getpid()

def scan():
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/status" % name, "rb") as fh:
                for line in fh:
                    if line.startswith(b"Uid:"):
                        if int(line.split()[1]) == uid:
                            found.add(int(name))
                        break
        except (OSError, IndexError, ValueError):
            continue
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

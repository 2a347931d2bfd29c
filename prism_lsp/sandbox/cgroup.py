"""Per-sandbox cgroups (v2 or v1 pids+memory) when this user may create them.

Process-count and memory limits that hold for a whole process tree need a
cgroup; rlimits alone do not bind root. Without cgroups the runner's rlimits
and per-run reaping still apply; `prism doctor` says which one is in force.
"""

from __future__ import annotations

import logging
import os
import signal
import time
import uuid
from pathlib import Path

log = logging.getLogger(__name__)

_V2 = Path("/sys/fs/cgroup")
_V1 = {"pids": Path("/sys/fs/cgroup/pids"), "memory": Path("/sys/fs/cgroup/memory")}


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def cgroup_mode() -> str | None:
    """'v2', 'v1' or None, for what this process can create here."""
    if (_V2 / "cgroup.controllers").is_file() and _writable(_V2):
        controllers = (_V2 / "cgroup.subtree_control").read_text().split()
        if "pids" in controllers and "memory" in controllers:
            return "v2"
    if all(_writable(p) for p in _V1.values()):
        return "v1"
    return None


class Cgroup:
    """One sandbox's cgroup(s). Create with `Cgroup.create`, which returns None when unsupported."""

    def __init__(self, dirs: list[Path], mode: str):
        self.dirs = dirs
        self.mode = mode

    @classmethod
    def create(cls, memory_bytes: int, pids_max: int) -> Cgroup | None:
        mode = cgroup_mode()
        if mode is None:
            return None
        name = f"prism-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            if mode == "v2":
                d = _V2 / name
                d.mkdir()
                (d / "pids.max").write_text(str(pids_max))
                (d / "memory.max").write_text(str(memory_bytes))
                (d / "memory.swap.max").write_text("0") if (d / "memory.swap.max").exists() else None
                return cls([d], mode)
            pids = _V1["pids"] / name
            mem = _V1["memory"] / name
            pids.mkdir()
            mem.mkdir()
            (pids / "pids.max").write_text(str(pids_max))
            (mem / "memory.limit_in_bytes").write_text(str(memory_bytes))
            return cls([pids, mem], mode)
        except OSError:
            return None

    def join_shell(self) -> str:
        """Shell words that move the current shell into every cgroup of this sandbox."""
        return "".join(f"echo $$ > {d / 'cgroup.procs'}; " for d in self.dirs)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            try:
                found.update(int(x) for x in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError) as exc:
                log.debug("pids: ignored %r", exc)
        return found

    def kill_all(self) -> None:
        if self.mode == "v2" and (self.dirs[0] / "cgroup.kill").exists():
            try:
                (self.dirs[0] / "cgroup.kill").write_text("1")
            except OSError as exc:
                log.debug("kill_all: ignored %r", exc)
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError as exc:
                    log.debug("kill_all: ignored %r", exc)
            time.sleep(0.01)

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break  # already removed (a runner is killed by its worker and by close() at once)
                except OSError:
                    time.sleep(0.02)

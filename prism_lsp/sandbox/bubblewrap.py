"""The bubblewrap backend: no network, read-only host, private /tmp, hidden $HOME.

Each runner gets its own namespaces (user, pid, net, ipc, uts, cgroup). The only
writable places are the private tmpfs /tmp (where the runner copies each program
tree) and /dev/shm. $HOME is replaced by an empty tmpfs, with just the folders the
runner needs (interpreter, site-packages, the tree cache) bound back read-only,
so a candidate can neither write nor read the author's files.
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

from prism_lsp.sandbox.base import AGENT, Limits, RunnerProcess, SandboxUnavailable, popen_runner
from prism_lsp.sandbox.cgroup import Cgroup

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap)"


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None when bwrap can create the namespaces we need, else the reason it cannot."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return f"bwrap not found: {INSTALL_HINT}"
    try:
        # The same mounts and namespaces as a real runner, so a host that allows namespaces but
        # not, say, a fresh /proc (inside an unprivileged container) is found out here.
        proc = subprocess.run([*_isolation_args(64), "--", "/bin/true"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start: {exc}"
    if proc.returncode != 0:
        hint = ("; unprivileged user namespaces may be disabled "
                "(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ an AppArmor profile for bwrap),"
                " or this is an unprivileged container (use the docker backend from the host)")
        return f"bwrap cannot build the sandbox: {proc.stderr.strip() or proc.returncode}{hint}"
    return None


def _isolation_args(tmpfs_mb: int) -> list[str]:
    """bwrap's mounts and namespaces, without the binds back and the command."""
    return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--size", str(tmpfs_mb << 20), "--tmpfs", "/tmp", "--tmpfs", "/dev/shm",
            "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]


def _needed_paths(python: str, extra: list[Path]) -> list[Path]:
    real = Path(os.path.realpath(python))
    paths = {real.parent.parent, Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), AGENT.parent,
             *[Path(p) for p in site.getsitepackages()], *extra}
    user_site = site.getusersitepackages()
    if isinstance(user_site, str):
        paths.add(Path(user_site))
    return sorted({Path(os.path.realpath(p)) for p in paths if Path(p).exists()})


class BubblewrapBackend:
    """Starts each runner in a fresh bubblewrap sandbox (plus a cgroup when allowed)."""

    name = "bubblewrap"
    warning: str | None = None

    def __init__(self, cache_root: Path):
        reason = probe()
        if reason:
            raise SandboxUnavailable(reason)
        self.cache_root = Path(cache_root)

    def argv(self, python: str, limits: Limits) -> list[str]:
        home = Path(os.path.expanduser("~")).resolve()
        hidden = [Path("/tmp"), Path("/dev/shm")] + ([home] if home != Path("/") else [])
        args = _isolation_args(limits.tmpfs_mb)
        if home in hidden:
            args += ["--tmpfs", str(home)]
        # What the runner needs may live under a folder hidden above (a checkout or the tree
        # cache in /tmp, a pyenv Python in $HOME): bind exactly those back, read-only.
        for path in _needed_paths(python, [self.cache_root]):
            if any(path.is_relative_to(h) and path != h for h in hidden):
                args += ["--ro-bind", str(path), str(path)]
        args += ["--hostname", "prism-sandbox", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
                 "--chdir", "/tmp", "--", python, str(AGENT), "--scratch", "/tmp/prism"]
        return args

    def spawn(self, python: str, limits: Limits) -> RunnerProcess:
        self.cache_root.mkdir(parents=True, exist_ok=True)
        cgroup = Cgroup.create(memory_bytes=(limits.memory_mb * 2 + 512) << 20, pids_max=limits.pids_max)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_ADDOPTS", "PYTHONPATH"))}
        return popen_runner(self.argv(python, limits), cgroup, env=env)

    def close(self) -> None:
        pass

"""The bubblewrap backend: no network, an allowlisted read-only view of the host, private /tmp.

Each runner gets its own namespaces (user, pid, net, ipc, uts, cgroup) and an empty root
in which only the system folders and the paths the runner needs (interpreter, site-packages,
the runner, the tree cache) are bound back read-only; `host_view` says exactly which. The
only writable places are the private tmpfs /tmp (where the runner copies each program tree)
and /dev/shm; $HOME is an empty read-only tmpfs. So a candidate can neither write nor read
the author's files, nor reach a host Unix socket (a read-only mount would not stop connect()).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from prism_lsp.sandbox.base import AGENT, Limits, RunnerProcess, SandboxUnavailable, popen_runner
from prism_lsp.sandbox.cgroup import Cgroup
from prism_lsp.sandbox.host_view import bind_args, interpreter_view, resolve_python, runner_paths, system_args

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


_RUNNER_CAPS = ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]


@functools.lru_cache(maxsize=1)
def runner_caps() -> list[str]:
    """The capabilities the runner keeps inside the sandbox's own user namespace, when this bwrap
    grants them (a setuid bwrap refuses --cap-add to non-root): the runner then gives each
    program its own pid and mount namespaces; without them it runs programs without those."""
    try:
        proc = subprocess.run([*_isolation_args(64), *_RUNNER_CAPS, "--", "/bin/true"], capture_output=True,
                              timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return _RUNNER_CAPS if proc.returncode == 0 else []


def _isolation_args(tmpfs_mb: int, mounts: list[str] | None = None) -> list[str]:
    """bwrap's mounts and namespaces, without the command; `mounts` go in before the root is made
    read-only (so bwrap can still create their mount points in it)."""
    return ["bwrap", *system_args(), "--dev", "/dev", "--proc", "/proc",
            "--size", str(tmpfs_mb << 20), "--tmpfs", "/tmp", "--tmpfs", "/dev/shm", *(mounts or []),
            "--remount-ro", "/",
            "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]


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
        # An empty read-only tmpfs over $HOME, so a program using its real path finds nothing there.
        hidden = [home] if home not in (Path("/"), Path("/tmp"), Path("/dev/shm")) else []
        # What the runner needs may lie in a hidden folder (a checkout or the tree cache in /tmp,
        # a pyenv Python in $HOME, a task's venv in /opt): exactly those are bound back, read-only.
        links = interpreter_view(python)[1]
        mounts = bind_args(runner_paths(python, [self.cache_root / "trees"]), hidden, links)
        # The runner keeps CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's own user namespace
        # (nothing on the host): it needs them to give each program its own pid and mount
        # namespaces and to drop every capability in that program before its code runs.
        return [*_isolation_args(limits.tmpfs_mb, mounts), *runner_caps(),
                "--hostname", "prism-sandbox", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
                "--chdir", "/tmp", "--", resolve_python(python), str(AGENT), "--scratch", "/tmp/prism",
                # /tmp and /dev/shm are this runner's own tmpfs: it may clear them between programs.
                "--private-tmp", "1",
                # Each program sees its own tree only: the cache is hidden in its mount namespace.
                "--hide", str(self.cache_root / "trees")]

    def spawn(self, python: str, limits: Limits) -> RunnerProcess:
        # The trees folder must exist now to be bound: one made later would not appear inside.
        (self.cache_root / "trees").mkdir(mode=0o755, parents=True, exist_ok=True)
        cgroup = Cgroup.create(memory_bytes=(limits.memory_mb * 2 + 512) << 20, pids_max=limits.pids_max)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_ADDOPTS", "PYTHONPATH"))}
        return popen_runner(self.argv(python, limits), cgroup, env=env)

    def close(self) -> None:
        pass

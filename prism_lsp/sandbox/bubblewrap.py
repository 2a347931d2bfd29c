"""The bubblewrap backend: no network, an allowlisted read-only view of the host, private /tmp.

Each runner gets its own namespaces (user, pid, net, ipc, uts, cgroup) and an empty root
in which only the system folders and the paths the runner needs (interpreter, site-packages,
the runner, the tree cache) are bound back read-only; `host_view` says exactly which, and a
task's own interpreter is shown only as `interpreter_rule` allows. The only writable places
are the private tmpfs /tmp (where the runner copies each program tree) and /dev/shm, both
sized from one budget (`Limits.tmpfs_sizes`); $HOME is an empty read-only tmpfs and /dev is
read-only (its device nodes still work). So a candidate can neither write nor read the author's
files, nor reach a host Unix socket (a read-only mount would not stop connect()), nor pin
more host memory in files than the budget.

The environment is cleared and rebuilt from `runner_environment` (no host secrets). As root,
the runner is started as an unprivileged uid (`unprivileged`), so root-only host files stay
unreadable inside.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from prism_lsp.sandbox.base import AGENT, Limits, RunnerProcess, SandboxUnavailable, popen_runner, runner_environment
from prism_lsp.sandbox.cgroup import Cgroup
from prism_lsp.sandbox.host_view import (
    bind_args,
    interpreter_view,
    resolve_python,
    runner_paths,
    system_args,
    system_real_roots,
)
from prism_lsp.sandbox.unprivileged import STAGE

LAUNCHER = Path(__file__).resolve().parent / "unprivileged.py"
# The host uid runners start as when Prism runs as root: one of its own per Prism process,
# in no group, owning nothing on the host.
SANDBOX_UID = random.SystemRandom().randrange(1_000_000, 2_000_000_000)

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap)"


_RUNNER_CAPS = ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]


def probe() -> str | None:
    """None when bwrap can create the namespaces we need, else the reason it cannot."""
    return _check_sandbox()[0]


def runner_caps() -> list[str]:
    """The capabilities the runner keeps inside the sandbox's own user namespace, when this bwrap
    grants them (a setuid bwrap refuses --cap-add to non-root): the runner then makes its own pid
    and mount namespaces and gives each program an IPC namespace; without them it runs programs
    without those."""
    return list(_check_sandbox()[1])


@functools.lru_cache(maxsize=1)
def _check_sandbox() -> tuple[str | None, tuple[str, ...]]:
    """(why bwrap cannot build the sandbox, or None; the capabilities a runner keeps), found out the
    way runners start (as an unprivileged uid when Prism is root) with the same mounts and
    namespaces, so a host that allows namespaces but not, say, a fresh /proc (inside an
    unprivileged container) is found out here. One bwrap start where the sandbox works with the
    runner's capabilities (measured ~20 ms of every cold start), a second only where it does not."""
    if not shutil.which("bwrap"):
        return f"bwrap not found: {INSTALL_HINT}", ()
    for caps in (_RUNNER_CAPS, []):
        try:
            argv = _unprivileged([*_isolation_args(Limits(tmpfs_mb=64)), *caps, "--", "/bin/true"])
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=20, env=runner_environment("/", "/tmp"))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap failed to start: {exc}", ()
        if proc.returncode == 0:
            return None, tuple(caps)
    hint = (
        "; as root, Prism starts bwrap as an unprivileged uid (so root-only files stay unreadable)"
        if os.geteuid() == 0
        else ""
    )
    hint += (
        "; unprivileged user namespaces may be disabled "
        "(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ an AppArmor profile for bwrap),"
        " or this is an unprivileged container (use the docker backend from the host)"
    )
    return f"bwrap cannot build the sandbox: {proc.stderr.strip() or proc.returncode}{hint}", ()


def _isolation_args(limits: Limits, mounts: list[str] | None = None) -> list[str]:
    """bwrap's mounts and namespaces, without the command; `mounts` go in before the root is made
    read-only (so bwrap can still create their mount points in it)."""
    # `--size` sizes only the next tmpfs: each writable one gets its own share of the budget.
    tmp_mb, shm_mb = limits.tmpfs_sizes()
    return [
        shutil.which("bwrap") or "bwrap",
        *system_args(),
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--size",
        str(tmp_mb << 20),
        "--tmpfs",
        "/tmp",
        "--size",
        str(shm_mb << 20),
        "--tmpfs",
        "/dev/shm",
        *(mounts or []),
        # Read-only /dev: nothing a program leaves there outlives it; /dev/shm, a mount of
        # its own, stays writable, and writing to /dev/null still works.
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--clearenv",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]


def _unprivileged(argv: list[str]) -> list[str]:
    """`argv` (a bwrap command) as Prism should start it: unchanged unless Prism runs as root; as
    root, through `LAUNCHER` as `SANDBOX_UID`, each non-system bind source staged (see there)."""
    if os.geteuid() != 0:
        return argv
    system = system_real_roots()
    argv, sources = list(argv), list[str]()
    end = argv.index("--") if "--" in argv else len(argv)
    for i in range(end - 2):
        source = argv[i + 1]
        if argv[i] == "--ro-bind" and not any(Path(source).is_relative_to(r) for r in system):
            argv[i + 1] = f"{STAGE}/{len(sources)}"
            sources.append(source)
    return [sys.executable, "-I", "-S", str(LAUNCHER), str(SANDBOX_UID), *sources, "--", *argv]


class BubblewrapBackend:
    """Starts each runner in a fresh bubblewrap sandbox (plus a cgroup when allowed)."""

    name = "bubblewrap"
    warning: str | None = None

    def __init__(self, cache_root: Path, python: str | None = None):
        reason = probe()
        if reason:
            raise SandboxUnavailable(reason)
        self.cache_root = Path(cache_root)
        if python:
            interpreter_view(python, [self.cache_root])  # a task's refused interpreter: an error now, not per run

    def argv(self, python: str, limits: Limits) -> list[str]:
        home = Path(os.path.expanduser("~")).resolve()
        # An empty read-only tmpfs over $HOME, so a program using its real path finds nothing there.
        hidden = [home] if home not in (Path("/"), Path("/tmp"), Path("/dev/shm")) else []
        # What the runner needs may lie in a hidden folder (a checkout or the tree cache in /tmp,
        # a pyenv Python in $HOME, a task's venv in /opt): exactly those are bound back, read-only.
        links = interpreter_view(python, [self.cache_root])[1]
        mounts = bind_args(runner_paths(python, [self.cache_root / "trees"]), hidden, links)
        env = runner_environment("/tmp", "/tmp", (str(Path(resolve_python(python)).parent),), limits.hash_seed)
        # The runner keeps CAP_SYS_ADMIN and CAP_SETPCAP inside the sandbox's own user namespace
        # (nothing on the host): it needs them to make its own pid and mount namespaces, an IPC
        # namespace per program, and to drop every capability in that program before its code runs.
        return [
            *_isolation_args(limits, mounts),
            *runner_caps(),
            "--hostname",
            "prism-sandbox",
            *[arg for key, value in env.items() for arg in ("--setenv", key, value)],
            "--chdir",
            "/tmp",
            "--",
            resolve_python(python),
            str(AGENT),
            "--scratch",
            "/tmp/prism",
            # /tmp and /dev/shm are this runner's own tmpfs: it may clear them between programs.
            "--private-tmp",
            "1",
            # Each program sees its own tree only: the cache is hidden in its mount namespace.
            "--hide",
            str(self.cache_root / "trees"),
        ]

    def spawn(self, python: str, limits: Limits) -> RunnerProcess:
        # The trees folder must exist now to be bound: one made later would not appear inside.
        (self.cache_root / "trees").mkdir(mode=0o755, parents=True, exist_ok=True)
        argv = _unprivileged(self.argv(python, limits))
        cgroup = Cgroup.create(memory_bytes=(limits.memory_mb * 2 + 512) << 20, pids_max=limits.pids_max)
        return popen_runner(argv, cgroup, env=runner_environment("/tmp", "/tmp"))

    def close(self) -> None:
        pass

"""What every sandbox backend provides: start the runner, limit it, kill all of it."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from prism_lsp.sandbox.cgroup import Cgroup

log = logging.getLogger(__name__)

AGENT = Path(__file__).resolve().parent.parent / "runner" / "agent.py"


class SandboxUnavailable(Exception):
    """The requested backend cannot run here; the message says how to fix that."""


@dataclass(frozen=True)
class Limits:
    """Per-program limits; the runner enforces them per run, the backend per sandbox."""

    memory_mb: int = 1024
    pids_max: int = 256
    output_limit: int = 16 << 20
    # One budget for every writable tmpfs of a sandbox (/tmp, /dev/shm): what a candidate can
    # pin in host memory there, with or without a cgroup. `tmpfs_sizes` splits it.
    tmpfs_mb: int = 2048
    # The runner's PYTHONHASHSEED: fixed at its start (a process cannot change its own), so a run
    # under another seed (confirming a failure, `--repeat`) needs runners started with it.
    hash_seed: int = 0

    def tmpfs_sizes(self) -> tuple[int, int]:
        """(/tmp, /dev/shm) sizes in MiB, summing to `tmpfs_mb`: /tmp holds the program trees,
        /dev/shm only what a program shares between its processes (an eighth, at least 1 MiB)."""
        shm = max(1, self.tmpfs_mb // 8)
        return self.tmpfs_mb - shm, shm


def default_runners(long_lived: bool = True) -> int:
    """How many runners a pool starts when nobody says: one per core, and in a long-lived process
    (the server, `prism score`, MCP) as many again, four at most. Programs do not keep a core busy
    all the time: the kernel tears a program's namespaces and memory down between programs, and a
    repository's tests wait on threads, sleeps and processes (more-itertools' `tests/test_more.py`:
    15 s of CPU in 23 s). A warm panel of seven such programs on 2 cores took 70-80 s on three
    runners (three rounds, the last a single program on one core) and 54 s on four (bench, 2026-12-07);
    one more runner than cores had made the fixtures' panel 6 % faster than one per core. A one-shot
    command (`prism run`) runs one panel: there, starting runners costs more than it saves (a cold
    `prism run` measured 970-1010 ms with an extra runner, 850-906 ms without)."""
    cores = os.cpu_count() or 1
    return cores + min(cores, 4) if long_lived else cores


# Host variables a runner may see: locale and time zone only (they change how programs print,
# not what they may reach). Everything else of the host's environment (tokens, keys, PYTEST_ADDOPTS,
# PYTHONPATH, proxies) stays out: the environment is the trusted user's, the programs are not.
_PASSED = ("LANG", "LANGUAGE", "TZ")


def runner_environment(home: str, tmpdir: str, bin_dirs: tuple[str, ...] = (), hash_seed: int = 0) -> dict[str, str]:
    """The whole environment of a runner, on every backend: an allowlist, never the host's.

    PYTHONHASHSEED=0 makes every run print dicts and sets in the same order (pytest's diffs,
    reports compared across runs); it must be set when the runner starts, since a process
    cannot change its own hash seed. `bin_dirs` lead PATH (the interpreter's own bin folder,
    so `python` in a task's test command is that interpreter).
    """
    env = {k: v for k, v in os.environ.items() if k in _PASSED or k.startswith("LC_")}
    env.update(
        PATH=":".join([*bin_dirs, "/usr/local/bin", "/usr/bin", "/bin"]),
        HOME=home,
        TMPDIR=tmpdir,
        PYTHONHASHSEED=str(hash_seed),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


class RunnerProcess:
    """A started runner: a process speaking JSON lines, killable as a whole."""

    def __init__(
        self,
        proc: subprocess.Popen,
        cgroup: Cgroup | None = None,
        cleanup: list[Path] | None = None,
        stderr_path: Path | None = None,
    ):
        self.proc = proc
        self.cgroup = cgroup
        self._cleanup = cleanup or []
        self.stderr_path = stderr_path

    @property
    def stdin(self):
        return self.proc.stdin

    @property
    def stdout(self):
        return self.proc.stdout

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self, limit: int = 2000) -> str:
        if not self.stderr_path or not self.stderr_path.exists():
            return ""
        with open(self.stderr_path, "rb") as fh:
            fh.seek(max(0, self.stderr_path.stat().st_size - limit))
            return fh.read().decode(errors="replace")

    def stage_tree(self, tree: str) -> str:
        """The path at which this runner reads `tree` (a host path in the cache) for the next program.

        Sandboxes that show the runner the cache itself (and hide it from programs) use it as is;
        Docker's runners place the tree alone in a folder of their own (`docker_stage`)."""
        return tree

    def clear_tree(self) -> None:
        """Forget what `stage_tree` placed, once its program ended."""

    def kill(self) -> None:
        """Kill the runner and everything it started; safe to call twice."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError as exc:
            log.debug("kill: ignored %r", exc)
        try:
            self.proc.kill()
        except OSError as exc:
            log.debug("kill: ignored %r", exc)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired as exc:
            log.debug("kill: ignored %r", exc)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError as exc:
                log.debug("kill: ignored %r", exc)
        if self.cgroup is not None:
            self.cgroup.remove()
        for path in self._cleanup:
            _rmtree(path)


def _rmtree(path: Path) -> None:
    import shutil

    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink(missing_ok=True)


class Backend(Protocol):
    """A sandbox backend. `warning` is shown to the user when set (e.g. for `none`)."""

    name: str
    warning: str | None

    def spawn(self, python: str, limits: Limits) -> RunnerProcess: ...

    def close(self) -> None: ...


def popen_runner(
    argv: list[str], cgroup: Cgroup | None, cleanup: list[Path] | None = None, env: dict[str, str] | None = None
) -> RunnerProcess:
    """Start `argv` in its own session, inside `cgroup` when given, with JSON-line pipes."""
    if cgroup is not None:
        # Join the cgroup before exec so every process the runner forks is counted.
        argv = ["/bin/sh", "-c", cgroup.join_shell() + 'exec "$@"', "sh", *argv]
    fd, err_name = tempfile.mkstemp(prefix="prism-runner-", suffix=".log")
    os.close(fd)
    err_path = Path(err_name)
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
            env=env,
            bufsize=0,
        )
    return RunnerProcess(proc, cgroup, [*(cleanup or []), err_path], err_path)

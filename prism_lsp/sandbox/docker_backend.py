"""The Docker backend: each runner alone in a container of its own, a `docker exec` inside it.

Runners of one container would share its /tmp, /dev/shm, network namespace (abstract Unix
sockets) and IPC namespace, and their runners have no capabilities to make private ones: two
programs running at the same moment could pass the panel's answers to each other (measured: a
file in /tmp and an abstract socket both crossed). So each runner gets its own container
(`network_mode="none"`, memory/pids/cpu limits for one runner, no capabilities at all, read-only
root with a private tmpfs /tmp when the image allows), started by `spawn` and removed when the
runner is killed, at `close()` or at interpreter exit. The tree cache is not mounted: a staging
folder of the container's own is (read-only, at `/prism-stage`, a path no image ancestor can
hide), and before each program the pool has the runner's `DockerRunner.stage_tree` place exactly
that program's tree in the runner's folder there (`docker_stage`); the runner file is
bind-mounted read-only too.

The runner runs under a uid of its own (from a random base per backend, never reused; numeric,
so the image needs no account), with a private 0700 scratch folder; because that uid is the
runner's alone, the runner caps it with RLIMIT_NPROC. Killing a runner removes its container,
and everything the runner and its programs started dies with it. Containers carry
`prism.owner=<pid>` and `prism.host=<hostname>` labels so ones left by a killed process can be
removed.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

from prism_lsp.sandbox.base import AGENT, Limits, RunnerProcess, SandboxUnavailable, popen_runner, runner_environment
from prism_lsp.sandbox.docker_image import build_image, connect, default_image, require_image
from prism_lsp.sandbox.docker_stage import STAGE_LABEL, RunnerStage, StageRoot

log = logging.getLogger(__name__)

RUNNER_DIR = "/opt/prism-runner"
STAGE_DIR = "/prism-stage"
# Runner uids are counted by the kernel host-wide (no user namespace): each backend takes
# its own random block, so two Prism processes on one host never share a uid's process count.
UID_BLOCKS = range(100_000, 2_000_000_000, 100_000)
OWNER_LABEL = "prism.owner"
HOST_LABEL = "prism.host"
# Keeps the container alive without depending on `sleep infinity` support; tini (init=True) reaps.
_KEEPALIVE = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"
_EXEC_TIMEOUT_S = 15


def _container_python(python: str) -> str:
    """The interpreter to run inside the container.

    The pool passes the host's `sys.executable` when the task names no `python`;
    that path means nothing in an image, so the image's `python3` is used instead.
    Any other value is taken as a path or command inside the image.
    """
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return "python3"
    return python


# Run as root in the container with the interpreter as $1: exit 3 = no such interpreter,
# 4 = it cannot import pytest (its error on stderr). Only an ImportError gives 4, so a fork
# that fails while a hostile candidate crowds the container is never read as a missing pytest;
# root, so a runner's uid limit does not apply either.
_TOOLS_PROBE = 'command -v "$1" >/dev/null 2>&1 || exit 3; exec "$1" -c "$2"'
_IMPORT_PYTEST = (
    "import sys\ntry:\n    import pytest\nexcept ImportError as exc:\n"
    "    print(type(exc).__name__ + ': ' + str(exc), file=sys.stderr)\n    sys.exit(4)\n"
)


def missing_tool(container: str, python: str, image: str) -> str | None:
    """Why the runner cannot start in `image`: no `python`, or no pytest for it; None when both are there.

    Without python3 `docker exec` prints its "executable file not found" on the runner's
    stdout, which the pool can only report as undecodable JSON; this names the tool instead.
    None also when the probe itself cannot run (container gone): nothing is known then.
    """
    try:
        probe = subprocess.run(
            ["docker", "exec", "--user", "0:0", container, "/bin/sh", "-c", _TOOLS_PROBE, "sh", python, _IMPORT_PYTEST],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_EXEC_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if probe.returncode == 3:
        return (
            f"image {image} has no {python}: the runner needs a Python interpreter with pytest in the image "
            "(e.g. RUN apt-get install -y python3 python3-pytest, or use a python base image)"
        )
    if probe.returncode == 4:
        error = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        return (
            f"image {image} has no pytest for {python} ({error}): install it in the image "
            "(e.g. RUN pip install pytest, or apt-get install -y python3-pytest)"
        )
    return None


class DockerRunner(RunnerProcess):
    """A runner started with `docker exec -i`, alone in `container`; kill() removes that container
    (`remove`), and with it every process of the runner."""

    def __init__(
        self, base: RunnerProcess, container: str, python: str, stage: RunnerStage, diagnose=None, remove=None
    ):
        super().__init__(base.proc, None, base._cleanup, base.stderr_path)
        self.stage = stage
        self.container = container
        self.python = python
        self._killed = False
        self._diagnose = diagnose
        self._remove = remove

    def stderr_tail(self, limit: int = 2000) -> str:
        """The runner's stderr, led by what the image lacks when python3 or pytest is missing.

        Read when the runner did not start or ended, exactly when a missing tool is the
        likely cause; the check runs at most once per container and interpreter.
        """
        tail = super().stderr_tail(limit)
        problem = self._diagnose(self.container, self.python) if self._diagnose else None
        return f"{problem}\n{tail}".strip() if problem else tail

    def stage_tree(self, tree: str) -> str:
        """Place `tree` (a host path in the cache) alone in this runner's staging folder; its path inside."""
        return self.stage.place(tree)

    def clear_tree(self) -> None:
        self.stage.clear()

    def kill(self) -> None:
        # Killing the local `docker exec` client does not stop what it started in the container:
        # removing the container does, whatever the runner's programs did to hide.
        super().kill()
        if not self._killed:
            self._killed = True
            if self._remove is not None:
                self._remove(self.container)
        self.stage.remove()


def remove_stale(client) -> list[str]:
    """Remove this host's Prism containers whose owning process is gone; returns their names."""
    from docker.errors import DockerException

    removed: list[str] = []
    host = socket.gethostname()
    try:
        containers = client.containers.list(all=True, filters={"label": [OWNER_LABEL, f"{HOST_LABEL}={host}"]})
    except (DockerException, OSError):  # an engine gone or refusing: nothing is removed, the run says why
        return removed
    for c in containers:
        try:
            pid = int(c.labels.get(OWNER_LABEL, "0"))
        except ValueError:
            continue
        if pid == os.getpid() or _alive(pid):
            continue
        stage = c.labels.get(STAGE_LABEL)
        if stage and os.path.basename(os.path.dirname(stage)) == "stage":
            shutil.rmtree(stage, ignore_errors=True)
        try:
            c.remove(force=True)
            removed.append(c.name)
        except Exception as exc:
            log.debug("remove_stale: ignored %r", exc)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_container(container_id: str, stage: StageRoot) -> None:
    """Remove a runner's container and its staging root: when the runner is killed, at `close()`
    and at interpreter exit, so with a fresh short-lived client, errors ignored (the engine may be
    gone already)."""
    stage.remove()
    try:
        client = connect(10)
        client.containers.get(container_id).remove(force=True)
        client.close()
    except Exception as exc:
        log.debug("_remove_container: ignored %r", exc)


class DockerBackend:
    """Runs each runner in a container of its own, from the task's image (per backend instance)."""

    name = "docker"

    def __init__(self, cache_root: Path, *, image: str | None = None, dockerfile: Path | None = None):
        if shutil.which("docker") is None:
            raise SandboxUnavailable(
                "the `docker` command-line client is not installed (Debian: apt-get install docker.io)"
            )
        self.cache_root = Path(cache_root).resolve()
        self.client = connect()
        if dockerfile is not None:
            self.image = build_image(Path(dockerfile))
            self.image_origin = f"{self.image} (built from {Path(dockerfile).resolve()})"
        else:
            self.image = self.image_origin = require_image(self.client, image or default_image())
        self.warning: str | None = None
        self.read_only: bool | None = None  # found out by the first container: whether the image runs read-only
        # Container id -> the hook that removes it and its staging root (also run at interpreter exit).
        self._containers: dict[str, functools.partial] = {}
        self._stale_removed = False
        self._lock = threading.Lock()
        self._closed = False
        self._next_uid = random.SystemRandom().choice(UID_BLOCKS)
        self._tools: dict[str, str | None] = {}  # python -> missing_tool() (the image's, in any of its containers)

    # -- the container -----------------------------------------------------
    def _run_kwargs(self, limits: Limits, read_only: bool, name: str, stage: StageRoot) -> dict:
        # One runner: room for its program at the program's own limit, plus the runner.
        memory_mb = limits.memory_mb + 256 + 512
        tmp_mb, shm_mb = limits.tmpfs_sizes()
        environment = runner_environment("/tmp", "/tmp", hash_seed=limits.hash_seed)
        del environment["PATH"]
        kwargs = dict(
            image=self.image,
            entrypoint=["/bin/sh", "-c", _KEEPALIVE],
            command=None,
            detach=True,
            init=True,
            network_mode="none",
            mem_limit=f"{memory_mb}m",
            memswap_limit=f"{memory_mb}m",
            pids_limit=limits.pids_max + 64,
            cpu_shares=512,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            read_only=read_only,
            working_dir="/tmp",
            # One tmpfs budget for the container, as in bubblewrap: /tmp and /dev/shm share it.
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={tmp_mb}m,mode=1777"},
            shm_size=f"{shm_mb}m",
            # The image's PATH is kept: its interpreter may live anywhere (/opt/conda/bin...).
            environment=environment,
            volumes={
                str(stage.host): {"bind": STAGE_DIR, "mode": "ro"},
                str(AGENT.parent): {"bind": RUNNER_DIR, "mode": "ro"},
            },
            labels={
                OWNER_LABEL: str(os.getpid()),
                HOST_LABEL: socket.gethostname(),
                "prism.image": self.image,
                STAGE_LABEL: str(stage.host),
            },
            name=name,
        )
        # A hard CPU quota (nano_cpus) throttles the runner's bursts of short forked runs:
        # measured 3x slower panels on a 2-core host. The wall-clock limit per run already
        # bounds CPU time, so the quota is opt-in (PRISM_DOCKER_CPUS, e.g. "1.5").
        if os.environ.get("PRISM_DOCKER_CPUS"):
            kwargs["nano_cpus"] = int(float(os.environ["PRISM_DOCKER_CPUS"]) * 10**9)
        return kwargs

    def _start(self, limits: Limits):
        """A new running container for one runner: (container, its staging root)."""
        from docker.errors import DockerException

        last = None
        for read_only in (True, False) if self.read_only is None else (self.read_only,):
            container = None
            name = f"prism-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            stage = StageRoot(self.cache_root, name, STAGE_DIR)
            try:
                container = self.client.containers.run(**self._run_kwargs(limits, read_only, name, stage))
                container.reload()
                if container.status == "running":
                    self.read_only = read_only
                    if not read_only:
                        self.warning = (
                            f"image {self.image} cannot run with a read-only root; "
                            "its root filesystem is writable (inside the container only)"
                        )
                    return container, stage
                last = container.logs(tail=20).decode(errors="replace").strip() or f"status {container.status}"
            except DockerException as exc:
                last = str(exc)
            except Exception as exc:  # timeouts from requests
                last = repr(exc)
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception as exc:
                    log.debug("_start: ignored %r", exc)
            stage.remove()
        raise SandboxUnavailable(f"cannot start a container from image {self.image}: {last}")

    # -- runners -------------------------------------------------------------
    def spawn(self, python: str, limits: Limits) -> RunnerProcess:
        """Start one runner in a new container of its own; JSON lines on its pipes. Runners of one
        backend start their containers side by side (none waits for another's)."""
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the docker backend was closed")
            stale, self._stale_removed = not self._stale_removed, True
            uid, self._next_uid = self._next_uid, self._next_uid + 1
        if stale:
            remove_stale(self.client)
        container, root = self._start(limits)
        # One callable per container, so unregistering it leaves other containers' hooks.
        hook = functools.partial(_remove_container, container.id, root)
        with self._lock:
            self._containers[container.id] = hook
            closed = self._closed
        atexit.register(hook)
        if closed:  # close() ran while this container started: it must not outlive the backend
            self._remove(container.id)
            raise SandboxUnavailable("the docker backend was closed")
        stage = root.for_runner(uid)
        py = _container_python(python)
        argv = [
            "docker",
            "exec",
            "-i",
            "--user",
            f"{uid}:{uid}",
            "-w",
            "/tmp",
            container.id,
            py,
            f"{RUNNER_DIR}/{AGENT.name}",
            "--scratch",
            f"/tmp/prism-{uid}-{uuid.uuid4().hex[:8]}",
            "--uid-private",
            "1",
            # /tmp and /dev/shm are the container's, never the host's: the runner may clear
            # what each program left there (its own uid's files only, so never a sibling's).
            "--private-tmp",
            "1",
        ]
        # `docker exec` passes none of the client's environment into the container (the runner
        # gets the container's, from `runner_environment`); the client keeps DOCKER_HOST & co.
        return DockerRunner(popen_runner(argv, None), container.id, py, stage, self._missing_tool, self._remove)

    def _missing_tool(self, container: str, python: str) -> str | None:
        """`missing_tool` for this backend's image, cached: an image's tools do not change."""
        if python not in self._tools:
            self._tools[python] = missing_tool(container, python, self.image_origin)
        return self._tools[python]

    @property
    def container_ids(self) -> list[str]:
        """The ids of this backend's live containers (one per runner), oldest first."""
        with self._lock:
            return list(self._containers)

    def _remove(self, container_id: str) -> None:
        """Remove one runner's container and its staging root (nothing else runs there)."""
        with self._lock:
            hook = self._containers.pop(container_id, None)
        if hook is not None:
            atexit.unregister(hook)
            hook()

    def close(self) -> None:
        """Remove every runner's container (their runners die with them). Safe to call twice."""
        with self._lock:
            self._closed = True
            ids = list(self._containers)
        threads = [threading.Thread(target=self._remove, args=(cid,)) for cid in ids]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        try:
            self.client.close()
        except Exception as exc:
            log.debug("close: ignored %r", exc)

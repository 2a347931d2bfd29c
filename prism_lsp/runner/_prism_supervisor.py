"""The supervisor of one program: fork the child, enforce its wall-clock limit, read its pipe,
kill and reap whatever it left, clear the shared folders, and turn it all into a `Result`."""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import _prism_isolation as isolation
import _prism_plugins as plugins
import _prism_preload as preload
import _prism_prepared as prepared_session
import _prism_programcode as programcode
import _prism_suitecode as suitecode
from _prism_child import PLUGINS_OFF, config_file, report_fatal, run_child, run_paths, session_args, write_run_files
from _prism_cleanup import CleanupFailed, SharedFolders, clear_runs
from _prism_collector import Collector, short
from _prism_outcome import interpret, parse
from _prism_protocol import ChildReport, Result, RunRequest, error_result
from _prism_reaper import reap_all

# What one child may write to its pipe; the rest is dropped (its own result is far smaller).
_PIPE_LIMIT = 32 << 20


@dataclass
class Settings:
    """The runner's settings, from its command line (`--scratch DIR`, `--trees HOST=HERE`,
    `--uid-private 1`, `--private-tmp 1`)."""

    scratch: str
    # (host prefix, path here) when the sandbox mounts the tree cache elsewhere (Docker): requests name host paths.
    trees_map: tuple[str, str] | None = None
    uid_private: bool = False  # this runner's uid is its own (Docker)
    private_tmp: bool = False  # /tmp and /dev/shm are this sandbox's own: clear them between programs
    shared: SharedFolders | None = field(default=None, repr=False)
    # The runner is the init of its own pid and mount namespaces (found out at start-up: needs
    # CAP_SYS_ADMIN), each program a child of it with an IPC namespace of its own (`_prism_isolation`).
    namespaces: bool = False
    # Folders no program may see (the tree cache): hidden in the runner's mount namespace.
    hide: list[str] = field(default_factory=list)
    # Hidden folder -> the runner's descriptor of it, through which it still reads the trees.
    hidden: dict[str, int] = field(default_factory=dict)
    # Set pytest's session up once per suite version, here, when the request allows (`_prism_prepared`).
    prepare: bool = True

    def tree_path(self, path: str) -> str:
        """Where the runner reads the tree the host calls `path`."""
        if self.trees_map and _under(path, self.trees_map[0]):
            return self.trees_map[1] + path[len(self.trees_map[0]) :]
        for folder, fd in self.hidden.items():
            if _under(path, folder):
                return f"/proc/self/fd/{fd}" + path[len(folder) :]
        return path


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def fork_program(settings: Settings) -> int:
    """`os.fork()` for a program's child (suite run or probe). In the runner's namespaces the child
    is alone there and pid 2, whatever ran before it: anything still alive in the namespace is
    killed first (every path after a program reaps already; this holds whatever path comes next)."""
    if settings.namespaces:
        reap_all(own_namespace=True)
        isolation.next_program_is_pid_2()
    return os.fork()


def _prepare(req: RunRequest, settings: Settings, plugins_off: list[str]):
    """The session set up in this runner for `req`'s suite, or None: the child then sets its own up."""
    if not settings.prepare or not prepared_session.usable(
        req.suite_rel, req.config_text, settings.tree_path(req.tree), req.command
    ):
        return None
    work, tree = run_paths(settings.scratch)
    key = (req.suite_rel, tuple(req.tests or ()), req.config_rel, req.config_text, tuple(plugins_off))
    return prepared_session.prepare(
        key,
        session_args(req, tree, config_file(req, work, tree), plugins_off),
        Collector(os.path.join(tree, req.suite_rel), {}),
        work,
        tree,
        lambda: write_run_files(req, work, tree),
    )


def _fork(req: RunRequest, settings: Settings, prepared, plugins_off: list[str]) -> tuple[int, int]:
    """(child pid, read end of its pipe)."""
    rfd, wfd = os.pipe()
    pid = fork_program(settings)
    if pid == 0:
        try:
            os.close(rfd)
            run_child(
                req,
                wfd,
                settings.scratch,
                settings.tree_path(req.tree),
                settings.uid_private,
                settings.namespaces,
                prepared,
                plugins_off,
            )
        except BaseException:
            report_fatal(wfd)
        finally:
            os._exit(70)
    os.close(wfd)
    return pid, rfd


def wait_child(pid: int, rfd: int, deadline: float) -> tuple[list[bytes], int | None, bool, float]:
    """(what the child wrote, its wait status or None, whether it timed out, when its pipe ended)."""
    ended = 0.0
    chunks: list[bytes] = []
    status = None
    timed_out = False
    size = 0
    eof = False
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            timed_out = True
            break
        if not eof:
            ready, _, _ = select.select([rfd], [], [], min(remaining, 0.05))
            if ready:
                chunk = os.read(rfd, 1 << 16)
                if not chunk:
                    eof = True
                    ended = time.perf_counter()
                elif size < _PIPE_LIMIT:
                    chunks.append(chunk)
                    size += len(chunk)
        try:
            done, st = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, st = pid, 0
        if done == pid:
            status = st
            break
        if eof:
            time.sleep(0.002)
    if not timed_out:
        # Drain what the child wrote just before it exited.
        while True:
            ready, _, _ = select.select([rfd], [], [], 0)
            if not ready:
                break
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            if size < _PIPE_LIMIT:
                chunks.append(chunk)
                size += len(chunk)
    os.close(rfd)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass
    return chunks, status, timed_out, ended or time.perf_counter()


def sealed_wait(
    pid: int, rfd: int, request_id: str, deadline: float, started: Callable[[str], str], settings: Settings
):
    """Tell the host the program `pid` runs and take back the request's secret (the program never had it
    in its memory), then wait for the child: (secret, `wait_child`'s answer). A host that does not answer
    (or answers with a wrong seal) ends the program: it is killed with everything it started, and what
    it left in the shared folders and its run folder is removed, before the error goes up. Shared by
    suite runs and probes, so both are sealed the same way."""
    try:
        secret = started(request_id)
    except BaseException:
        kill_program(pid)
        os.close(rfd)
        reap_all(settings.namespaces)
        clear_after_program(settings)
        raise
    return secret, wait_child(pid, rfd, deadline)


def clear_after_program(settings: Settings) -> None:
    """Remove what the last program left in the shared folders and the scratch; `CleanupFailed` when
    something could not be removed (the runner must then be replaced)."""
    if settings.shared is not None:
        settings.shared.forget()
    clear_runs(settings.scratch)


def run_one(req: RunRequest, settings: Settings, started: Callable[[str], str]) -> Result:
    """Run `req` in a forked child and interpret what it left.

    `started(id)` is called once the child is forked and returns the request's secret, which
    the result is stamped with: the child never had it in its memory. Raises `CleanupFailed`
    when the program left something that could not be removed: the runner must then be
    replaced, never run another program in that state.
    """
    start = time.perf_counter()
    run_tree = run_paths(settings.scratch)[1]
    suitecode.prepare(os.path.join(run_tree, req.suite_rel), req.suite_text, req.suite_code_tag, req.suite_code)
    compiled = time.perf_counter()
    program_compiled = 0  # a task's own test command runs in new processes: they inherit no code
    if not req.command:
        program_compiled = programcode.prepare(
            run_tree, settings.tree_path(req.tree), req.probed(), req.entry, req.pythonpath, req.suite_rel
        )
    program_code = time.perf_counter()
    # Switched off only when nothing of the run's set-up can reach them (`_prism_plugins`).
    plugins_off = plugins.switched_off(
        PLUGINS_OFF, req.suite_rel, req.suite_text, req.config_text, settings.tree_path(req.tree), req.pythonpath
    )
    prepared = _prepare(req, settings, plugins_off)
    set_up = time.perf_counter()
    pid, rfd = _fork(req, settings, prepared, plugins_off)
    forked = time.perf_counter()
    secret, (chunks, status, timed_out, ended) = sealed_wait(
        pid, rfd, req.id, start + float(req.timeout_s), started, settings
    )
    waited = time.perf_counter()
    reap_all(settings.namespaces)
    elapsed = (time.perf_counter() - start) * 1000
    parsed = parse(b"".join(chunks).strip().splitlines())
    result = interpret(req, parsed, status, timed_out, elapsed)
    if isinstance(parsed[0], ChildReport):
        programcode.learn(parsed[0].imported)
        preload.learn(parsed[0].stdlib)
    try:
        clear_after_program(settings)
    except CleanupFailed as exc:
        exc.result = error_result(
            req.id,
            "sandbox",
            short(f"the program left files that could not be removed ({exc}); its runner was replaced"),
        )
        exc.result.secret = secret
        raise
    result.secret = secret
    result.phases = {
        "compile": round((compiled - start) * 1000, 2),
        "program_code": round((program_code - compiled) * 1000, 2),
        "program_compiled": float(program_compiled),
        "prepare": round((set_up - program_code) * 1000, 2),
        "prepared": 1.0 if prepared is not None else 0.0,
        "fork": round((forked - set_up) * 1000, 2),
        **result.phases,
        "child": round((waited - start) * 1000, 2),
        "exit": round((waited - ended) * 1000, 2),
        "cleanup": round((time.perf_counter() - waited) * 1000, 2),
    }
    return result


def kill_program(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass

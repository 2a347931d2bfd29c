"""Everything besides a program and a test that can change a test's outcome, as one hash.

Two processes (the CLI, the server, `prism gate`) that would run a test the same way compute the
same context, so one's results serve the other: the runner's code and protocol, the interpreter
(its path, its binary, its installed packages' folders), the sandbox backend, the limits, the
hash seed and confirmation choices, the suite's place and command, the initial state (whose
pytest configuration every program runs under). The reveal level is not in it: results are
stored unredacted and redacted when a report is made.

The backend is the one `auto` *plans* (`sandbox.select.planned_backend`, a pure function of
the task): computing a key never starts a pool. A run that ended up on another backend (Docker
unusable, bubblewrap instead) is not stored (`IncrementalRunner`).
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import sys
from pathlib import Path

from prism_lsp.engine.requests import entry_specs
from prism_lsp.engine.session import RunOptions
from prism_lsp.model.task import Task
from prism_lsp.runner._prism_protocol import PROTOCOL_VERSION
from prism_lsp.sandbox.select import chosen_sandbox, planned_backend

_RUNNER = Path(__file__).resolve().parents[1] / "runner"
_MAX_SITE_DIRS = 8


@functools.lru_cache(maxsize=1)
def runner_version() -> str:
    """A hash of the runner's code (what runs inside the sandbox and decides outcomes)."""
    h = hashlib.sha256(f"protocol {PROTOCOL_VERSION}".encode())
    for path in sorted(_RUNNER.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _stat(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _interpreter(python: str, _tick: int) -> str:
    real = os.path.realpath(python)
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    # A venv shares its binary with others: its own packages' folders (their mtimes change on install).
    sites = sorted(glob.glob(os.path.join(prefix, "lib", "python*", "site-packages")))[:_MAX_SITE_DIRS]
    parts = [os.path.abspath(python), _stat(real), _stat(os.path.join(prefix, "pyvenv.cfg")), *map(_stat, sites)]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def interpreter_identity(python: str) -> str:
    """Who `python` is: path, binary, packages (re-read at most every 10 s in one process)."""
    import time

    return _interpreter(python, int(time.monotonic() // 10))


def backend_of(task: Task, options: RunOptions) -> str:
    """The backend a run of `task` plans to use (pure; raises `SandboxUnavailable` as a run would)."""
    return planned_backend(chosen_sandbox(options.sandbox, task.sandbox, task.manifest), task.image, task.dockerfile)


def run_context(task: Task, suite_rel: str, suite_text: str, options: RunOptions, initial_digest: str) -> str:
    """The context hash of one suite's tests on `task` with `options` (see the module's docstring)."""
    backend = backend_of(task, options)
    if backend == "docker":
        dockerfile = task.dockerfile.read_bytes() if task.dockerfile and task.dockerfile.is_file() else b""
        interpreter = repr((task.image, task.python, hashlib.sha256(dockerfile).hexdigest()))
    else:
        interpreter = interpreter_identity(task.python or sys.executable)
    parts = (
        runner_version(),
        backend,
        interpreter,
        task.memory_mb,
        task.pids_max,
        options.timeout_s or task.timeout_s,
        options.hash_seed,
        options.repeat,
        options.confirm,
        task.test_command,
        tuple(task.pythonpath),
        tuple(entry_specs(task, suite_text)),
        suite_rel,
        initial_digest,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()

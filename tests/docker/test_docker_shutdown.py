"""SIGTERM/SIGHUP remove the task's container: `install_exit_on_signals` turns them into a normal exit.

Each case runs a small Python process that starts a Docker backend and a runner,
installs the handlers and waits (idle, or serving LSP on stdin like `prism-lsp`);
after the signal no container with its `prism.owner` label may remain.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from prism_lsp.sandbox.docker_backend import OWNER_LABEL
from prism_lsp.sandbox.shutdown import install_exit_on_signals

pytestmark = pytest.mark.docker

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from prism_lsp.sandbox.base import Limits
    from prism_lsp.sandbox.docker_backend import DockerBackend
    from prism_lsp.sandbox.shutdown import install_exit_on_signals

    cache, image, mode = sys.argv[1:4]
    backend = DockerBackend(Path(cache), image=image)
    runner = backend.spawn(sys.executable, Limits())
    runner.stdout.readline()  # the runner is up: its container exists
    assert install_exit_on_signals()
    print(backend.container_ids[0], flush=True)
    if mode == "lsp":
        from prism_lsp.server.app import main
        main([])  # what `prism-lsp` runs: blocked reading LSP from stdin
    else:
        while True:
            time.sleep(1)
""")


def _owned(pid: int) -> list[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label={OWNER_LABEL}={pid}"], capture_output=True, text=True, timeout=30
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def _wait_until(check, deadline_s: float, what: str):
    deadline = time.monotonic() + deadline_s
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {deadline_s:g} s waiting for {what}")
        time.sleep(0.1)


@pytest.mark.parametrize(
    ("signum", "mode"),
    [(signal.SIGTERM, "idle"), (signal.SIGHUP, "idle"), (signal.SIGTERM, "lsp"), (signal.SIGHUP, "lsp")],
)
def test_signal_removes_the_container(signum, mode, cache_dir, docker_image):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(cache_dir), docker_image, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Under `nohup` the signal would arrive ignored, and an ignored SIGHUP stays ignored.
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    try:
        cid = child.stdout.readline().strip()
        assert cid, child.stderr.read() if child.poll() is not None else "no container id"
        assert _owned(child.pid), "the container should exist while its owner runs"
        child.send_signal(signum)
        status = child.wait(timeout=60)
        assert status == 128 + signum, child.stderr.read()  # a normal exit carrying the signal's status
        _wait_until(lambda: not _owned(child.pid), 30, f"the removal of container {cid[:12]}")
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for leftover in _owned(child.pid):
            subprocess.run(["docker", "rm", "-f", leftover], capture_output=True, timeout=30)


CHAIN = textwrap.dedent("""
    import atexit, os, signal, sys
    from prism_lsp.sandbox.shutdown import install_exit_on_signals

    atexit.register(lambda: print("atexit ran", flush=True))
    signal.signal(signal.SIGTERM, lambda s, f: print("previous handler ran", flush=True))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    assert install_exit_on_signals() and install_exit_on_signals()  # twice: no double chaining
    os.kill(os.getpid(), signal.SIGHUP)  # still ignored
    print("survived SIGHUP", flush=True)
    os.kill(os.getpid(), signal.SIGTERM)
    print("not reached", flush=True)
""")


def test_previous_handler_is_chained_and_ignored_signals_stay_ignored():
    out = subprocess.run([sys.executable, "-c", CHAIN], capture_output=True, text=True, timeout=60)
    assert out.returncode == 128 + signal.SIGTERM, out.stderr
    assert out.stdout.splitlines() == ["survived SIGHUP", "previous handler ran", "atexit ran"]


def test_off_the_main_thread_it_does_nothing():
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    result = []
    worker = threading.Thread(target=lambda: result.append(install_exit_on_signals()))
    worker.start()
    worker.join()
    assert result == [False]
    assert {s: signal.getsignal(s) for s in before} == before


WEDGED = textwrap.dedent("""
    import atexit, sys, threading
    from prism_lsp.sandbox.shutdown import install_exit_on_signals

    atexit.register(lambda: print("atexit ran", flush=True))
    threading.Thread(target=sys.stdin.read).start()  # non-daemon, blocked for good: holds a normal exit
    assert install_exit_on_signals(grace_s=1)
    print("ready", flush=True)
    threading.Event().wait()
""")


def test_a_blocked_thread_cannot_hold_the_exit_forever():
    child = subprocess.Popen(
        [sys.executable, "-c", WEDGED], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 128 + signal.SIGTERM
        assert child.stdout.read().splitlines() == ["atexit ran"]
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def test_prism_run_terminated_mid_run_leaves_no_container(tmp_path, docker_image):
    import shutil

    from tests.conftest import write_task

    root = write_task(
        tmp_path / "task",
        initial={"calc.py": "def f():\n    return 1\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"calc.py": "def f():\n    return 2\n"}}],
    )
    suite = root / "test_slow.py"
    suite.write_text("import time\nfrom calc import f\n\ndef test_f():\n    time.sleep(30)\n    assert f() == 2\n")
    proc = subprocess.Popen(
        [
            shutil.which("prism"),
            "run",
            str(root),
            str(suite),
            "--sandbox",
            "docker",
            "--cache-dir",
            str(tmp_path / "cache"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_until(lambda: _owned(proc.pid), 120, "prism run's container")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        assert proc.returncode == 128 + signal.SIGTERM
        _wait_until(lambda: not _owned(proc.pid), 30, "the container to be removed")
    finally:
        proc.kill()

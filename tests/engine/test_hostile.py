"""Hostile candidates through each real sandbox (bubblewrap, and Docker when an engine runs):
each ends as an `error` (or the verdict its behaviour earns), never harms the host, the
engine, or — under Docker — the task's container."""

import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

SUITE = Suite("tests/test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")
TIMEOUT = 3


@pytest.fixture(params=["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request):
    if request.param == "docker":
        request.getfixturevalue("docker_image")
    return request.param


def run_evil(tmp_path, engine, sandbox, body: str, *, header: str = ""):
    root = write_task(
        tmp_path / "task",
        extra_task=f"timeout_s = {TIMEOUT}",
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {"id": "evil", "label": "invalid", "files": {"solution.py": header + "def f():\n" + body}},
        ],
    )
    task = load_task(root)
    start = time.monotonic()
    run = engine.run(task, SUITE, RunOptions(sandbox=sandbox))
    elapsed = time.monotonic() - start
    results = {c.id: r for c, r in run.results}
    assert run.baseline.outcome == "fail" and results["reference"].outcome == "pass"
    return results["evil"], elapsed


def container_of(engine, sandbox, tmp_path):
    """The Docker containers serving the hostile task's pool, one per runner (None for other sandboxes)."""
    if sandbox != "docker":
        return None
    return engine.pool_for(load_task(tmp_path / "task"), sandbox).backend.container_ids


def running(container_id: str) -> bool:
    out = subprocess.run(
        ["docker", "inspect", "-f", "{{.State.Running}}", container_id], capture_output=True, text=True, timeout=20
    )
    return out.stdout.strip() == "true"


def test_infinite_loop_is_a_timeout_error_within_the_limit(tmp_path, engine, sandbox):
    run_evil(tmp_path, engine, sandbox, "    return 2\n")  # time the loop, not a container start
    before = container_of(engine, sandbox, tmp_path)
    res, elapsed = run_evil(tmp_path, engine, sandbox, "    while True:\n        pass\n")
    assert res.outcome == "error" and res.reason == "timeout"
    assert elapsed < TIMEOUT + 5
    if before:  # the run was killed, not its runner or the runner's container (runners still starting may add theirs)
        assert set(before) <= set(container_of(engine, sandbox, tmp_path)) and all(running(c) for c in before)


def test_exit_at_import_is_an_error_not_a_pass(tmp_path, engine, sandbox):
    res, _ = run_evil(tmp_path, engine, sandbox, "    return 2\n", header="import os\nos._exit(0)\n")
    assert res.outcome == "error" and res.reason == "exited"


def test_sys_exit_at_import_is_an_error_not_a_pass(tmp_path, engine, sandbox):
    res, _ = run_evil(tmp_path, engine, sandbox, "    return 2\n", header="import sys\nsys.exit(0)\n")
    assert res.outcome == "error"


def test_exit_inside_the_test_is_an_error_not_a_pass(tmp_path, engine, sandbox):
    res, _ = run_evil(tmp_path, engine, sandbox, "    import os\n    os._exit(0)\n")
    assert res.outcome == "error"


def test_socket_to_a_host_listener_receives_nothing(tmp_path, engine, sandbox):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    received: list[bytes] = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            received.append(conn.recv(100) or b"<connected>")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    body = (
        f"    import socket\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
        "    s.sendall(b'leak')\n    return 2\n"
    )
    try:
        res, _ = run_evil(tmp_path, engine, sandbox, body)
    finally:
        stop.set()
        thread.join(2)
        listener.close()
    assert received == []
    assert res.outcome == "fail"  # connect raised inside f(): a rejection of this invalid candidate
    assert "Error" in res.tests[0].message or "refused" in res.tests[0].message


def test_writes_outside_the_tree_and_into_home_never_reach_the_host(tmp_path, engine, sandbox):
    marker = f"prism-hostile-{uuid.uuid4().hex}"
    targets = [
        Path("/tmp") / marker,
        Path.home() / marker,
        tmp_path / marker,
        Path("/var/tmp") / marker,
        tmp_path / "task" / "initial" / marker,
        Path(engine.cache.root) / marker,
    ]
    body = (
        "".join(
            f"    try:\n        os.makedirs({str(t.parent)!r}, exist_ok=True)\n        open({str(t)!r}, 'w').write('x')\n"
            "    except OSError:\n        pass\n"
            for t in targets
        )
        + "    return 2\n"
    )
    res, _ = run_evil(tmp_path, engine, sandbox, body, header="import os\n")
    for t in targets:
        assert not t.exists(), t
    # Writes land in the sandbox's private /tmp (or fail): the verdict stands.
    assert res.outcome == "pass"


def test_eight_gib_allocation_is_an_error_and_the_host_is_fine(tmp_path, engine, sandbox):
    res, _ = run_evil(tmp_path, engine, sandbox, "    block = bytearray(8 << 30)\n    return 2\n")
    assert res.outcome == "error" and res.reason in ("memory", "killed")


def test_fifty_megabytes_of_output_is_bounded(tmp_path, engine, sandbox):
    body = "    import sys\n    for _ in range(50):\n        sys.stdout.write('x' * (1 << 20))\n    return 2\n"
    res, _ = run_evil(tmp_path, engine, sandbox, body)
    assert res.outcome == "error" and res.reason == "output-limit"
    assert len(res.message) < 10_000


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds `marker` (sandboxed processes share the host's kernel)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(int(pid))
            except OSError:
                pass
    return found


def test_spawning_many_processes_is_bounded_and_all_are_gone_afterwards(tmp_path, engine, sandbox):
    marker = f"{uuid.uuid4().int % 100000 + 100000}"
    body = (
        "    import subprocess\n    n = 0\n    for _ in range(2000):\n        try:\n"
        f"            subprocess.Popen(['sleep', '{marker}'])\n            n += 1\n"
        "        except OSError:\n            break\n    return n\n"
    )
    res, _ = run_evil(tmp_path, engine, sandbox, body)
    assert res.outcome == "fail"
    spawned = int(res.tests[0].message.split("assert ")[1].split(" ==")[0])
    assert 200 <= spawned < 2000  # 200 start; the process-count limit stops the rest
    assert processes_with(marker) == []


def test_killing_its_parent_is_an_error_and_the_engine_keeps_working(tmp_path, engine, sandbox):
    body = "    import os, signal\n    os.kill(os.getppid(), signal.SIGKILL)\n    return 2\n"
    res, _ = run_evil(tmp_path, engine, sandbox, body)
    if sandbox == "bubblewrap":
        # The program's parent is its runner, the init of its own pid namespace, which ignores the
        # signal: the runner is out of its reach, and the program's verdict is its behaviour's.
        assert res.outcome == "pass"
    else:
        assert res.outcome == "error" and res.reason == "sandbox"
    containers = container_of(engine, sandbox, tmp_path)
    if containers is not None:  # the killed runner's container went with it; the others run on
        assert containers and all(running(c) for c in containers)
    again, _ = run_evil(tmp_path / "again", engine, sandbox, "    return 3\n")
    assert again.outcome == "fail"


def test_a_fork_that_outlives_the_test_is_reaped(tmp_path, engine, sandbox):
    marker = f"{uuid.uuid4().int % 100000 + 200000}"
    body = f"    import subprocess\n    subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n    return 2\n"
    res, _ = run_evil(tmp_path, engine, sandbox, body)
    assert res.outcome == "pass"
    assert processes_with(marker) == []

"""The runner as the init of its own namespaces (`_prism_isolation`), spoken to over its real
protocol in a real bubblewrap sandbox: whatever path a program's run takes, nothing of it is alive
when the next program starts."""

from __future__ import annotations

import ast
import json
import sys
import time

import pytest

from prism_lsp.engine.requests import run_request
from prism_lsp.engine.session import EngineSession
from prism_lsp.model.run import Suite
from prism_lsp.runner._prism_protocol import Seal
from prism_lsp.sandbox.base import Limits
from prism_lsp.sandbox.bubblewrap import probe
from prism_lsp.tasks import load_task
from tests.conftest import write_task

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"bubblewrap unusable here: {probe()}")

# Leaves a daemon behind (its own session, so killing the program's process group misses it).
DAEMON = (
    "import subprocess, time\n\nsubprocess.Popen(['sleep', '300'], start_new_session=True)\n\n"
    "def f():\n    time.sleep(300)\n"
)
# Names every process it can see but itself.
LOOKER = "import os\n\ndef f():\n    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid())\n"
SUITE = Suite("test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")


def _line(runner) -> dict:
    return json.loads(runner.stdout.readline())


def _send(runner, message) -> None:
    runner.stdin.write((message.to_json() + "\n").encode())
    runner.stdin.flush()


def test_a_run_whose_seal_is_refused_leaves_nothing_for_the_next_program(tmp_path, cache_dir):
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": DAEMON},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": LOOKER}}],
    )
    task = load_task(root)
    with EngineSession(cache_dir, workers=1) as session:
        backend = session.pool_for(task, "bubblewrap").backend
        daemon_tree, looker_tree = session.cache.baseline(task), session.cache.candidate(task, task.reference)
        runner = backend.spawn(sys.executable, Limits())
        try:
            assert _line(runner)["kind"] == "ready"
            first = run_request(daemon_tree, SUITE, task)
            _send(runner, first)
            assert _line(runner)["kind"] == "started"
            # The program runs while the runner waits for its seal, and says nothing the host can
            # wait for: give it the time to import its module and start the daemon (~50 ms needed).
            time.sleep(1.5)
            _send(runner, Seal(id="not-this-request", secret="x"))  # the runner refuses the seal
            answer = _line(runner)
            assert answer["kind"] == "result" and answer["outcome"] == "error" and "seal" in answer["message"]
            second = run_request(looker_tree, SUITE, task)
            _send(runner, second)
            started = _line(runner)
            assert started == {"kind": "started", "id": second.id}
            _send(runner, Seal(id=second.id, secret="s"))
            result = _line(runner)
        finally:
            runner.kill()
    assert result["outcome"] == "fail", result  # judged as usual: its run folder was cleared
    message = result["tests"][0]["message"]
    seen = ast.literal_eval(message.split("assert ")[1].split(" ==")[0])
    assert seen == [], message  # no daemon of the first program, and no runner either


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it (host pids)."""
    found = [pid]
    for child in open(f"/proc/{pid}/task/{pid}/children").read().split():
        found += _tree(int(child))
    return found


def test_a_runner_is_one_warm_interpreter_the_process_outside_its_namespaces_a_bare_waiter(tmp_path, cache_dir):
    # The process that made the namespaces used to stay a forked copy of the runner, taking a copy
    # of every page the runner wrote afterwards (12.5 MB after 20 panels, measured).
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": LOOKER},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": LOOKER}}],
    )
    with EngineSession(cache_dir, workers=1) as session:
        runner = session.pool_for(load_task(root), "bubblewrap").backend.spawn(sys.executable, Limits())
        try:
            assert _line(runner)["kind"] == "ready"
            processes = {pid: open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0") for pid in _tree(runner.proc.pid)}
        finally:
            runner.kill()
    pythons = {pid: argv for pid, argv in processes.items() if b"python" in argv[0].rsplit(b"/", 1)[-1]}
    warm = [pid for pid, argv in pythons.items() if len(argv) > 1 and argv[1].endswith(b"agent.py")]
    waiters = [pid for pid, argv in pythons.items() if b"-c" in argv and b"waitpid" in b" ".join(argv)]
    assert len(warm) == 1 and len(waiters) == 1, pythons

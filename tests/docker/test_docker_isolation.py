"""Runners of a task cannot reach each other, and a session keeps few containers.

Every runner runs alone in a container of its own, under its own uid with a private scratch
folder: a hostile candidate in one runner must not change the verdicts of honest ones running at
the same time in another, nor even see their folders.
"""

from __future__ import annotations

import json
import os
import subprocess

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox.base import Limits
from prism_lsp.sandbox.docker_backend import OWNER_LABEL
from prism_lsp.tasks import load_task
from tests.conftest import write_task

# Slow enough that the honest programs of the other runner overlap the hostile ones.
SUITE = Suite(
    "tests/test_f.py",
    "import time\nfrom solution import f\n\ndef test_f():\n    time.sleep(0.3)\n    assert f() == 2\n",
)

# Tries, for two seconds, to write into every other runner's scratch folder, to overwrite
# any solution.py it can find there, and to kill any process not of its own uid; returns
# what it tried and what worked, which the suite's assertion message reports.
WRITER = """import glob, os, signal, time

def f():
    mine = os.getcwd()
    seen, tried, wrote, killed = set(), 0, 0, 0
    end = time.monotonic() + 2
    while time.monotonic() < end:
        for d in glob.glob("/tmp/prism-*"):
            if mine.startswith(d + "/"):
                continue
            seen.add(d)
            targets = [os.path.join(d, "evil")] + glob.glob(d + "/**/solution.py", recursive=True)
            for t in targets:
                tried += 1
                try:
                    with open(t, "w") as fh:
                        fh.write("def f():\\n    return 99\\n")
                    wrote += 1
                except OSError:
                    pass
        for pid in os.listdir("/proc"):
            try:
                if pid.isdigit() and os.stat("/proc/" + pid).st_uid not in (0, os.getuid()):
                    os.kill(int(pid), signal.SIGKILL)
                    killed += 1
            except OSError:
                pass
        time.sleep(0.02)
    return f"seen={len(seen)} tried={tried} wrote={wrote} killed={killed}"
"""

# Kills every process it may signal, over and over: its own runner, never the others.
KILLER = """import os, signal

def f():
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
"""

# Holds as many processes as it can start for four seconds: its runner's share of the
# container's pids, which must leave room for the other runner's forks meanwhile.
FORKER = """import subprocess, time

def f():
    held = []
    end = time.monotonic() + 4
    while time.monotonic() < end:
        try:
            held.append(subprocess.Popen(["sleep", "30"]))
        except OSError:
            time.sleep(0.05)
    for p in held:
        p.kill()
        p.wait()
    return len(held)
"""

HONEST = "def f():\n    return 2\n"


def container_processes(container_id: str) -> list[tuple[int, int, int]]:
    """(pid, ppid, uid) of every process in the container, read as root inside it."""
    code = (
        "import os, json\nout = []\nfor p in os.listdir('/proc'):\n    if p.isdigit():\n        try:\n"
        "            st = dict(l.split(':', 1) for l in open('/proc/%s/status' % p).read().splitlines() if ':' in l)\n"
        "            out.append((int(p), int(st['PPid']), int(st['Uid'].split()[0])))\n"
        "        except (OSError, KeyError):\n            pass\nprint(json.dumps(out))\n"
    )
    out = subprocess.run(
        ["docker", "exec", "--user", "0:0", container_id, "python3", "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return [tuple(p) for p in json.loads(out.stdout)]


def test_a_hostile_runner_cannot_touch_the_honest_runs_beside_it(tmp_path, docker_engine):
    honest = [{"id": f"honest-{i}", "files": {"solution.py": HONEST}} for i in range(2, 7)]
    root = write_task(
        tmp_path / "task",
        extra_task="timeout_s = 8",
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": HONEST}},
            {"id": "writer", "label": "invalid", "files": {"solution.py": WRITER}},
            {"id": "killer", "label": "invalid", "files": {"solution.py": KILLER}},
            *honest,
        ],
    )
    task = load_task(root)
    docker_engine.pool_for(task, "docker").warm()  # both runners up, so each sees the other's folder
    run = docker_engine.run(task, SUITE, RunOptions(sandbox="docker"))
    results = {c.id: r for c, r in run.results}

    assert run.baseline.outcome == "fail"
    for cid in ["reference", *(c["id"] for c in honest)]:
        assert results[cid].outcome == "pass", (cid, results[cid].message)
    writer = results["writer"]
    assert writer.outcome == "fail", writer.message
    report = writer.tests[0].message
    seen = int(report.split("seen=")[1].split()[0])
    assert seen == 0, report  # the other runners' folders are in other containers: not even visible
    assert "wrote=0 " in report and "killed=0'" in report, report
    assert results["killer"].outcome == "error" and results["killer"].reason == "sandbox"

    # Nothing of a killed runner lingers: its container went with it; in every live one, each
    # non-root process is its runner's (started by `docker exec`, parent pid 0, or below it).
    containers = docker_engine.pool_for(task, "docker").backend.container_ids
    assert containers
    for container in containers:
        procs = container_processes(container)
        runner_uids = {uid for _, ppid, uid in procs if ppid == 0 and uid}
        assert len(runner_uids) == 1 and {uid for _, _, uid in procs if uid} <= runner_uids, procs


def test_a_fork_bomb_in_one_runner_leaves_the_other_runner_room_to_fork(tmp_path, docker_engine):
    honest = [{"id": f"honest-{i}", "files": {"solution.py": HONEST}} for i in range(2, 9)]
    root = write_task(
        tmp_path / "task",
        extra_task="timeout_s = 8",
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "forker", "label": "invalid", "files": {"solution.py": FORKER}},
            {"id": "reference", "reference": True, "files": {"solution.py": HONEST}},
            *honest,
        ],
    )
    task = load_task(root)
    docker_engine.pool_for(task, "docker").warm()
    run = docker_engine.run(task, SUITE, RunOptions(sandbox="docker"))
    results = {c.id: r for c, r in run.results}

    forker = results["forker"]
    assert forker.outcome == "fail", forker.message
    held = int(forker.tests[0].message.split("assert ")[1].split(" ==")[0])
    assert 100 <= held < Limits().pids_max, forker.tests[0].message  # its runner's share, and no more
    for cid in ["reference", *(c["id"] for c in honest)]:
        assert results[cid].outcome == "pass", (cid, results[cid].reason, results[cid].message)


def test_runners_have_distinct_uids_and_private_scratch(tmp_path, docker_engine):
    probe = (
        'import glob, os\n\ndef f():\n    d = [p for p in glob.glob("/tmp/prism-*") if os.getcwd().startswith(p + "/")][0]\n'
        "    st = os.stat(d)\n    return (os.getuid(), st.st_uid, oct(st.st_mode & 0o777))\n"
    )
    root = write_task(
        tmp_path / "task",
        initial={"solution.py": probe},
        candidates=[{"id": "reference", "reference": True, "files": {}}],
    )
    task = load_task(root)
    run = docker_engine.run(
        task,
        Suite("test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 0\n"),
        RunOptions(sandbox="docker"),
    )
    messages = [run.baseline.tests[0].message] + [r.tests[0].message for _, r in run.results]
    for message in messages:
        uid, owner, mode = eval(message.split("assert ")[1].split(" == ")[0])
        assert uid >= 10000 and owner == uid and mode == "0o700", message


def owned_containers() -> set[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--no-trunc", "--filter", f"label={OWNER_LABEL}={os.getpid()}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return set(out.stdout.split())


def small_task(root, *, image: str | None = None):
    extra = f'image = "{image}"' if image else ""
    return load_task(
        write_task(
            root,
            extra_task=extra,
            initial={"solution.py": "def f():\n    return 1\n"},
            candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}}],
        )
    )


def test_one_container_per_runner_and_at_most_four_pools_alive(tmp_path, cache_dir, docker_image):
    suite = Suite("test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")
    before = owned_containers()  # other sessions of this test process own some too
    session = EngineSession(cache_dir, workers=1)
    seen: set[str] = set()
    try:
        for i in range(6):
            task = small_task(tmp_path / f"task-{i}")
            run = session.run(task, suite, RunOptions(sandbox="docker"))
            assert run.baseline.outcome == "fail" and run.results[0][1].outcome == "pass"
            seen.update(session.pool_for(task, "docker").backend.container_ids)
            assert len(owned_containers() - before) <= 4  # one runner per pool here, one container per runner
        assert len(seen) == 6  # each task's runner had its own
    finally:
        session.close()
    assert owned_containers() - before == set()


def test_auto_keys_on_the_resolved_backend(tmp_path, cache_dir, docker_image):
    session = EngineSession(cache_dir, workers=1)
    try:
        # A task bringing an image makes `auto` pick Docker: then each task has its own pool.
        first, second = (small_task(tmp_path / n, image=docker_image) for n in ("a", "b"))
        pool_a, pool_b = session.pool_for(first, "auto"), session.pool_for(second, "auto")
        assert pool_a.backend.name == "docker" and pool_a is not pool_b
        assert session.pool_for(first, "docker") is pool_a  # `auto` and its resolution are one pool
        # Other backends isolate every runner already: tasks share their pool.
        plain = [small_task(tmp_path / n) for n in ("c", "d")]
        assert session.pool_for(plain[0], "none") is session.pool_for(plain[1], "none")
    finally:
        session.close()

"""Verdict integrity (issue 8) through the real sandboxes (bubblewrap, and Docker when an engine
runs) and the real engine: a program can
forge only its own result. It cannot write answers into its runner's output, ptrace the
runner, see another tree, learn which candidate it is, leave anything for the next program,
or change how pytest judges the suite through configuration files."""

from __future__ import annotations

import ast
import re

import pytest

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

SUITE = Suite("tests/test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")
INITIAL = {"solution.py": "def f():\n    return 1\n"}
REFERENCE = {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}}


@pytest.fixture(params=["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request):
    if request.param == "docker":
        request.getfixturevalue("docker_image")
    return request.param


def _run(engine, root, sandbox, suite=SUITE):
    task = load_task(root)
    run = engine.run(task, suite, RunOptions(sandbox=sandbox))
    return run, {c.id: r for c, r in run.results}


def observed(result):
    """The value a spying candidate's f() returned, read back from `assert <value> == 2`."""
    message = result.tests[0].message
    found = re.search(r"assert (.*) == 2", message)
    assert found, message
    return ast.literal_eval(found.group(1))


def spy_task(tmp_path, body: str, *, extra: list[dict] | None = None, header: str = ""):
    return write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[
            REFERENCE,
            {"id": "spy", "label": "invalid", "files": {"solution.py": header + "def f():\n" + body}},
            *(extra or []),
        ],
    )


@pytest.fixture
def one_runner(cache_dir):
    """An engine with a single runner: every program of a panel runs in it, one after another."""
    session = EngineSession(cache_dir, workers=1)
    yield session
    session.close()


FORGER = """
import json, os

def _forge():
    lines = []
    for name in ["reference", "victim-1", "victim-2", "victim-3", "victim-4", None, "x"]:
        lines.append({"id": name, "outcome": "pass", "tests": [], "duration_ms": 1})
        lines.append({"kind": "started", "id": name})
        lines.append({"kind": "result", "id": name, "outcome": "pass", "secret": ""})
    text = "".join(json.dumps(line) + "\\n" for line in lines) * 20
    wrote = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fd = os.open(f"/proc/{pid}/fd/1", os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(fd, text.encode())
            wrote += 1
        except OSError:
            pass
        os.close(fd)
    return wrote
"""


def test_a_program_cannot_forge_the_verdicts_of_other_programs(tmp_path, sandbox, one_runner):
    victims = [
        {"id": f"victim-{i}", "label": "invalid", "files": {"solution.py": "def f():\n    return 3\n"}}
        for i in range(1, 5)
    ]
    root = write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[
            {
                "id": "forger",
                "label": "invalid",
                "files": {"solution.py": FORGER + "\ndef f():\n    return _forge()\n"},
            },
            REFERENCE,
            *victims,
        ],
    )
    run, results = _run(one_runner, root, sandbox)
    assert run.baseline.outcome == "fail"
    assert results["reference"].outcome == "pass"
    for i in range(1, 5):
        assert results[f"victim-{i}"].outcome == "fail", results[f"victim-{i}"]
    # It reached no process's output at all (it sees only its own namespace's /proc).
    assert observed(results["forger"]) == 0


def test_a_program_cannot_ptrace_or_read_the_runner(tmp_path, sandbox, engine):
    body = """    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    reached = []
    for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if pid == os.getpid():
            continue
        if libc.ptrace(16, pid, 0, 0) == 0:  # PTRACE_ATTACH
            reached.append(("ptrace", pid))
        for what in ("environ", "mem", "fd/1"):
            try:
                open(f"/proc/{pid}/{what}", "rb").close()
                reached.append((what, pid))
            except OSError:
                pass
    return reached
"""
    run, results = _run(engine, spy_task(tmp_path, body), sandbox)
    assert observed(results["spy"]) == []


def test_a_program_sees_its_own_tree_and_no_other(tmp_path, sandbox, engine):
    # Every mount the program can see is searched for any other program's solution.py.
    body = """    import os
    found = []
    mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
    for top in set(mounts) - {"/", "/proc", "/usr", "/etc", "/dev"}:
        for folder, dirs, files in os.walk(top):
            if folder.startswith(os.getcwd()):
                continue
            if "solution.py" in files:
                found.append(folder)
            if len(found) > 5:
                break
    return sorted(found)
"""
    run, results = _run(engine, spy_task(tmp_path, body), sandbox)
    assert observed(results["spy"]) == []


VICTIM = {"id": "victim", "label": "invalid", "files": {"solution.py": "def f():\n    return 3  # zq8-victim\n"}}


def test_a_program_cannot_open_another_tree_whose_digest_it_knows(tmp_path, sandbox, one_runner, cache_dir):
    # The victim's tree is built first; the spy is then told its digest (as a program could read
    # it from its runner's memory, inherited by the fork) and also tries every path it finds there.
    _run(one_runner, write_task(tmp_path / "first", initial=INITIAL, candidates=[REFERENCE, VICTIM]), sandbox)
    digests = [
        solution.parent.parent.name
        for solution in (cache_dir / "trees").glob("*/tree/solution.py")
        if "zq8-victim" in solution.read_text()
    ]
    assert digests
    body = f'''    import gc, os
    paths = set()
    for digest in {digests!r}:
        paths |= {{f"/prism-trees/{{digest}}/tree", "{cache_dir}/trees/" + digest + "/tree"}}
        # The runner reads the hidden cache through a descriptor: try its and our own numbers.
        paths |= {{f"/proc/{{pid}}/fd/{{fd}}/{{digest}}/tree" for pid in ("self", "1", "2") for fd in range(40)}}
    for obj in gc.get_objects():
        values = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
        for value in values:
            if isinstance(value, str) and value.startswith("/prism-") and len(value) < 300:
                paths.add(value)
    read = []
    for path in sorted(paths):
        try:
            if "zq8-victim" in open(os.path.join(path, "solution.py")).read():
                read.append(path)
        except OSError:
            pass
    return read
'''
    _, results = _run(one_runner, spy_task(tmp_path, body, extra=[VICTIM]), sandbox)
    assert results["victim"].outcome == "fail"
    assert observed(results["spy"]) == []


def test_a_program_cannot_learn_which_candidate_it_is(tmp_path, sandbox, engine):
    # Its runner's memory is its own (a fork): nothing in it may name the candidate.
    body = """    import gc, os
    names = ("zq7-hidden-candidate", "zq7-twin")
    hits = sum(1 for o in gc.get_objects() for n in names if isinstance(o, (str, dict)) and n in str(o)[:100000])
    return (hits, os.getcwd())
"""
    twin = {"id": "zq7-twin", "label": "invalid", "files": {"solution.py": "def f():\n" + body}}
    root = write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[
            REFERENCE,
            {"id": "zq7-hidden-candidate", "label": "invalid", "files": {"solution.py": "def f():\n" + body}},
            twin,
        ],
    )
    run, results = _run(engine, root, sandbox)
    first, second = observed(results["zq7-hidden-candidate"]), observed(results["zq7-twin"])
    assert first[0] == 0 and second[0] == 0
    if sandbox == "bubblewrap":
        assert first[1] == second[1]  # the tree's path inside the sandbox is the same for every program
    else:
        # Docker's runners share the container's /tmp, each in its own scratch folder: the path is
        # its runner's (uid, random), the same for every program of that runner, never the tree's.
        assert first[1].endswith("/run/tree") and second[1].endswith("/run/tree")


LEAVER = """    import os
    deep = "/tmp/evil-deep"
    os.makedirs(deep)
    os.chdir(deep)
    for _ in range(3000):
        os.mkdir("d")
        os.chdir("d")
    os.makedirs("/tmp/evil-locked/inner")
    open("/tmp/evil-locked/inner/secret", "w").write("x")
    os.chmod("/tmp/evil-locked/inner", 0)
    os.chmod("/tmp/evil-locked", 0)
    os.makedirs("/dev/shm/evil-shm")
    os.chmod("/dev/shm/evil-shm", 0)
    os.chdir("/")
    return 1
"""
LOOKER = "    import os\n    return sorted(n for d in ('/tmp', '/dev/shm') for n in os.listdir(d) if 'evil' in n)\n"


def two_spies(tmp_path, *spies: tuple[str, str]):
    """A task whose candidates are the spies `(id, body of f)`, in that order, then the reference."""
    return write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[
            *({"id": cid, "label": "invalid", "files": {"solution.py": "def f():\n" + body}} for cid, body in spies),
            REFERENCE,
        ],
    )


def test_nothing_a_program_leaves_reaches_the_next_program_of_its_runner(tmp_path, sandbox, one_runner):
    root = two_spies(tmp_path, ("leaver", LEAVER), ("looker", LOOKER))
    run, results = _run(one_runner, root, sandbox)
    assert results["leaver"].outcome == "fail"
    assert observed(results["looker"]) == []
    assert results["reference"].outcome == "pass"


IPC_LEAVER = """    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mq_open.restype = ctypes.c_int
    made = [libc.shmget(0x5157, 4096, 0o1666) >= 0, libc.msgget(0x5158, 0o1666) >= 0,
            libc.semget(0x5159, 1, 0o1666) >= 0,
            libc.mq_open(b"/prism-evil", os.O_CREAT | os.O_RDWR, 0o666, None) >= 0]
    return sum(made)
"""
IPC_LOOKER = """    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mq_open.restype = ctypes.c_int
    found = [libc.shmget(0x5157, 0, 0) >= 0, libc.msgget(0x5158, 0) >= 0, libc.semget(0x5159, 0, 0) >= 0,
             libc.mq_open(b"/prism-evil", os.O_RDONLY, 0, None) >= 0]
    return [name for name, hit in zip(("shm", "msg", "sem", "mqueue"), found) if hit]
"""


def test_ipc_objects_a_program_leaves_never_reach_the_next_program_of_its_runner(tmp_path, sandbox, one_runner):
    # System V shared memory, message queues and semaphores and POSIX message queues outlive the
    # processes that made them. Bubblewrap: each program has an IPC namespace of its own. Docker
    # (runners have no capabilities to make one): the calls are refused.
    root = two_spies(tmp_path, ("leaver", IPC_LEAVER), ("looker", IPC_LOOKER))
    run, results = _run(one_runner, root, sandbox)
    assert observed(results["leaver"]) == (4 if sandbox == "bubblewrap" else 0)  # it made all four, or none
    assert observed(results["looker"]) == []
    assert results["reference"].outcome == "pass"


# Two programs running at the same moment in two runners: the first leaves a file in /tmp and
# listens on an abstract Unix socket for two seconds; the second looks for both meanwhile.
TALKER = """    import os, socket, time
    with open("/tmp/zq9-channel", "w") as fh:
        fh.write("the reference says 2")
    os.chmod("/tmp/zq9-channel", 0o666)
    server = socket.socket(socket.AF_UNIX)
    server.bind("\\0zq9-channel")
    server.listen(1)
    time.sleep(2)
    return 1
"""
LISTENER = """    import socket, time
    heard = set()
    end = time.monotonic() + 1.5
    while time.monotonic() < end and len(heard) < 2:
        try:
            heard.add(open("/tmp/zq9-channel").read())
        except OSError:
            pass
        try:
            socket.socket(socket.AF_UNIX).connect("\\0zq9-channel")
            heard.add("socket")
        except OSError:
            pass
        time.sleep(0.05)
    return sorted(heard)
"""


def test_programs_running_at_the_same_moment_share_no_folder_or_socket(tmp_path, sandbox, engine):
    # Docker once ran every runner of a task in one container, sharing its /tmp and network
    # namespace: this passed the panel's answers between runners.
    root = two_spies(tmp_path, ("talker", TALKER), ("listener", LISTENER))
    engine.pool_for(load_task(root), sandbox).warm()  # every runner up: the two programs overlap
    run, results = _run(engine, root, sandbox)
    assert results["talker"].outcome == "fail" and results["reference"].outcome == "pass"
    assert observed(results["listener"]) == []


PIDS = "    import os\n    return (os.getpid(), os.getppid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"


def test_every_program_of_a_runner_sees_the_same_pids_and_no_other_process(tmp_path, one_runner):
    # Pids grow with each process a namespace makes: were they not reset, a program could tell how
    # many programs ran before it in its runner, and so which candidate it is. Its runner (its
    # parent) is invisible in /proc.
    spies = [{"id": f"spy-{i}", "label": "invalid", "files": {"solution.py": "def f():\n" + PIDS}} for i in range(3)]
    root = write_task(tmp_path / "task", initial=INITIAL, candidates=[REFERENCE, *spies])
    run, results = _run(one_runner, root, "bubblewrap")
    seen = [observed(results[f"spy-{i}"]) for i in range(3)]
    assert seen[0] == seen[1] == seen[2], seen
    pid, parent, visible = seen[0]
    assert visible == [pid] and parent not in visible


# A plugin that passes every test without running it (the first `pytest_pyfunc_call` to answer wins).
PLUGIN = """import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    return True
"""


@pytest.mark.parametrize(
    "name,text",
    [
        ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-p evilplug"\n'),
        ("tox.ini", "[pytest]\naddopts = -p evilplug\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = -p evilplug\n"),
    ],
)
def test_configuration_files_of_a_candidate_cannot_change_how_the_suite_is_judged(
    tmp_path, sandbox, engine, name, text
):
    cheat = {
        "id": "cheat",
        "label": "invalid",
        "files": {"solution.py": "def f():\n    return 1\n", "evilplug.py": PLUGIN, name: text},
    }
    root = write_task(tmp_path / "task", initial=INITIAL, candidates=[REFERENCE, cheat])
    run, results = _run(engine, root, sandbox)
    assert results["cheat"].outcome == "fail"
    assert results["reference"].outcome == "pass"


def test_the_initial_states_configuration_is_the_one_used(tmp_path, sandbox, engine):
    # The initial state's pyproject.toml puts src/ on the path; a candidate's edit of it is ignored.
    initial = {
        "src/solution.py": "def f():\n    return 1\n",
        "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    }
    root = write_task(
        tmp_path / "task",
        initial=initial,
        candidates=[
            {"id": "reference", "reference": True, "files": {"src/solution.py": "def f():\n    return 2\n"}},
            {
                "id": "cheat",
                "label": "invalid",
                "files": {
                    "src/solution.py": "def f():\n    return 1\n",
                    "evilplug.py": PLUGIN,
                    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "-p evilplug"\n',
                },
            },
        ],
    )
    run, results = _run(engine, root, sandbox)
    assert run.baseline.outcome == "fail"
    assert results["reference"].outcome == "pass"
    assert results["cheat"].outcome == "fail"

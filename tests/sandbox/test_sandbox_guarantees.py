"""What every sandbox backend guarantees a hostile candidate cannot see or keep (issue 8, items 5, 6, 8),
checked from inside real runners on bubblewrap and on Docker.

Each probe is an invalid candidate whose f() gathers what it can see and raises it as its message.
"""

import json
import os

import pytest

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox.base import Limits
from prism_lsp.tasks import load_task
from tests.conftest import write_task

SUITE = Suite("tests/test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")
SECRET = "prism-test-secret-7f3a"


@pytest.fixture(params=["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request):
    if request.param == "docker":
        request.getfixturevalue("docker_image")
    else:
        from prism_lsp.sandbox.bubblewrap import probe

        if probe() is not None:
            pytest.skip(f"bubblewrap unusable here: {probe()}")
    return request.param


def probe_result(tmp_path, engine, sandbox, body: str) -> dict:
    """Run `def f():` + body (which must `raise AssertionError('SEEN ' + json.dumps(...))`); what it saw."""
    root = write_task(
        tmp_path / "task",
        extra_task="timeout_s = 20\n",
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {"id": "probe", "label": "invalid", "files": {"solution.py": "import json, os, sys\n\ndef f():\n" + body}},
        ],
    )
    run = engine.run(load_task(root), SUITE, RunOptions(sandbox=sandbox))
    results = {c.id: r for c, r in run.results}
    assert results["reference"].outcome == "pass", results["reference"]  # trees readable, scratch writable
    probe = results["probe"]
    assert probe.outcome == "fail", probe
    return json.loads(probe.tests[0].message.split("SEEN ", 1)[1].split("\n", 1)[0])


def environment_seen(tmp_path, monkeypatch, cache_dir, sandbox) -> dict:
    """What a program sees of its environment when Prism was started with a token and PYTEST_ADDOPTS set."""
    # Set before this session starts its runners, as a token in the shell that starts Prism would be.
    monkeypatch.setenv("PRISM_SECRET_TOKEN", SECRET)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no_such_plugin")
    session = EngineSession(cache_dir, workers=1)
    try:
        return probe_result(
            tmp_path,
            session,
            sandbox,
            "    raise AssertionError('SEEN ' + json.dumps({'env': dict(os.environ),"
            " 'seed': sys.flags.hash_randomization}))\n",
        )
    finally:
        session.close()


def assert_allowlisted(seen: dict) -> None:
    env = seen["env"]
    assert not any(SECRET in v for v in env.values()), env
    assert "PRISM_SECRET_TOKEN" not in env and "PYTEST_ADDOPTS" not in env, sorted(env)
    # PYTHONHASHSEED=0 from the runner's start: hash order (pytest's dict diffs) is the same every run.
    assert seen["seed"] == 0 and env["PYTHONHASHSEED"] == "0"


def test_host_environment_stays_out_and_the_hash_seed_is_fixed(tmp_path, monkeypatch, cache_dir, sandbox):
    assert_allowlisted(environment_seen(tmp_path, monkeypatch, cache_dir, sandbox))


def test_the_none_backend_runs_with_the_same_environment(tmp_path, monkeypatch, cache_dir):
    """`none` isolates nothing, but its runs are the same: same hash order, no tokens in os.environ."""
    assert_allowlisted(environment_seen(tmp_path, monkeypatch, cache_dir, "none"))


def test_every_writable_tmpfs_is_capped_from_one_budget_and_dev_is_read_only(tmp_path, engine, sandbox):
    body = (
        "    seen = {}\n"
        "    for d in ('/tmp', '/dev/shm'):\n"
        "        st = os.statvfs(d)\n"
        "        seen[d] = st.f_blocks * st.f_frsize\n"
        "    try:\n"
        "        with open('/dev/prism-left-behind', 'w') as fh:\n"
        "            fh.write('x')\n"
        "        seen['dev'] = 'written'\n"
        "    except OSError as exc:\n"
        "        seen['dev'] = type(exc).__name__\n"
        "    with open('/dev/null', 'w') as fh:\n"
        "        fh.write('still works')\n"
        "    raise AssertionError('SEEN ' + json.dumps(seen))\n"
    )
    seen = probe_result(tmp_path, engine, sandbox, body)
    # Together within the budget: an unsized /dev/shm would be half the host's memory.
    assert seen["/tmp"] + seen["/dev/shm"] <= Limits().tmpfs_mb << 20, seen
    assert seen["dev"] in ("OSError", "PermissionError"), seen  # EROFS (bubblewrap) / EACCES (Docker, not root)


def test_root_only_host_files_are_unreadable(tmp_path, engine, sandbox):
    body = (
        "    seen = {'uid': os.getuid()}\n"
        "    for path in ('/etc/shadow', '/etc/gshadow'):\n"
        "        try:\n"
        "            with open(path) as fh:\n"
        "                seen[path] = 'read %d bytes' % len(fh.read())\n"
        "        except OSError as exc:\n"
        "            seen[path] = type(exc).__name__\n"
        "    raise AssertionError('SEEN ' + json.dumps(seen))\n"
    )
    seen = probe_result(tmp_path, engine, sandbox, body)
    for path in ("/etc/shadow", "/etc/gshadow"):
        assert not str(seen.get(path)).startswith("read"), seen
    if sandbox == "bubblewrap" and os.path.exists("/etc/shadow") and os.geteuid() == 0:
        assert seen["/etc/shadow"] == "PermissionError", seen  # there, but not for the runner's uid
    if os.geteuid() == 0:
        assert seen["uid"] != 0, seen

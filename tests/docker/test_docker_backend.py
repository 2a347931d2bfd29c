"""The Docker backend's lifecycle and failure modes, against the real engine."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from prism_lsp.engine.pool import RunnerPool
from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox import Limits, SandboxUnavailable, resolve_backend
from prism_lsp.sandbox import docker_image as docker_image_module
from prism_lsp.sandbox.docker_backend import HOST_LABEL, OWNER_LABEL, DockerBackend, remove_stale
from prism_lsp.tasks import load_task
from tests.conftest import write_task

pytestmark = pytest.mark.docker


def _exists(container_id: str) -> bool:
    out = subprocess.run(["docker", "inspect", container_id], capture_output=True, timeout=20)
    return out.returncode == 0


def _ready(runner) -> dict:
    return json.loads(runner.stdout.readline())


def test_each_runner_has_a_container_of_its_own_removed_with_it_and_on_close(cache_dir, docker_image):
    backend = DockerBackend(cache_dir, image=docker_image)
    first, second = backend.spawn(sys.executable, Limits()), backend.spawn(sys.executable, Limits())
    try:
        info = _ready(first)
        assert info["kind"] == "ready" and info["python"].startswith("3.")  # the image's python, not the host's
        assert _ready(second)["kind"] == "ready"
        ids = backend.container_ids
        assert ids == [first.container, second.container] and first.container != second.container
        for cid in ids:
            attrs = backend.client.containers.get(cid).attrs
            assert attrs["HostConfig"]["NetworkMode"] == "none"
            assert attrs["HostConfig"]["ReadonlyRootfs"] is True
            assert not attrs["HostConfig"]["CapAdd"]  # root in it has no capability either
            assert attrs["Config"]["Labels"][OWNER_LABEL] == str(os.getpid())
        first.kill()  # that runner and its container only
        assert not first.alive() and second.alive()
        assert not _exists(ids[0]) and _exists(ids[1])
        assert backend.container_ids == [ids[1]]
    finally:
        backend.close()
    assert not _exists(ids[1]) and backend.container_ids == []
    backend.close()  # twice is fine


def test_pool_close_removes_the_container(cache_dir, docker_image):
    backend = DockerBackend(cache_dir, image=docker_image)
    pool = RunnerPool(backend, workers=2)
    pool.warm()
    ids = backend.container_ids
    assert len(ids) == 2 and all(_exists(cid) for cid in ids)
    pool.close()
    assert not any(_exists(cid) for cid in ids)


def test_container_is_removed_when_the_interpreter_exits(cache_dir, docker_image):
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from prism_lsp.sandbox.base import Limits
        from prism_lsp.sandbox.docker_backend import DockerBackend
        b = DockerBackend(Path({str(cache_dir)!r}), image={docker_image!r})
        r = b.spawn(sys.executable, Limits())
        r.stdout.readline()
        print(b.container_ids[0], flush=True)
    """)  # no close(): the atexit hook must remove it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    cid = out.stdout.strip()
    assert cid, out.stderr
    assert not _exists(cid)


def test_stale_containers_of_dead_owners_are_removed(docker_image):
    dead = subprocess.Popen(["true"])
    dead.wait()
    client = docker_image_module.connect()
    c = client.containers.create(
        docker_image, ["true"], labels={OWNER_LABEL: str(dead.pid), HOST_LABEL: socket.gethostname()}
    )
    try:
        assert c.name in remove_stale(client)
        assert not _exists(c.id)
    finally:
        if _exists(c.id):
            c.remove(force=True)
        client.close()


def test_unreachable_engine_is_a_clear_error_fast(cache_dir, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/prism-docker.sock")
    start = time.monotonic()
    with pytest.raises(SandboxUnavailable, match="Docker engine unreachable at unix:///nonexistent"):
        DockerBackend(cache_dir, image="prism-python:local")
    assert time.monotonic() - start < 10


def test_silent_engine_times_out_instead_of_hanging(cache_dir, monkeypatch):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts connections, never answers
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setattr(docker_image_module, "API_TIMEOUT_S", 2)
    start = time.monotonic()
    try:
        with pytest.raises(SandboxUnavailable, match="unreachable"):
            DockerBackend(cache_dir, image="prism-python:local")
    finally:
        silent.close()
    assert time.monotonic() - start < 15


def test_missing_image_is_a_clear_error_and_never_pulled(cache_dir):
    with pytest.raises(SandboxUnavailable, match=r"image 'prism-no-such-image:never' is not present.*never pulls"):
        DockerBackend(cache_dir, image="prism-no-such-image:never")


def test_failed_build_names_the_dockerfile_and_the_step(cache_dir, tmp_path, docker_image):
    dockerfile = tmp_path / "env" / "Dockerfile"
    dockerfile.parent.mkdir()
    dockerfile.write_text(f"FROM {docker_image}\nRUN echo prism-build-broke && exit 3\n")
    with pytest.raises(SandboxUnavailable, match=r"building the Docker image from .*Dockerfile failed") as err:
        DockerBackend(cache_dir, dockerfile=dockerfile)
    assert "prism-build-broke" in str(err.value) or "exit 3" in str(err.value) or "code: 3" in str(err.value)


def test_task_dockerfile_is_built_once_and_used(tmp_path, docker_engine, docker_image):
    root = write_task(
        tmp_path / "task",
        extra_task='dockerfile = "env/Dockerfile"',
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {
                "id": "reference",
                "reference": True,
                "files": {"solution.py": "def f():\n    return open('/etc/prism-marker').read().strip()\n"},
            }
        ],
    )
    (root / "env").mkdir()
    (root / "env" / "Dockerfile").write_text(f"FROM {docker_image}\nRUN echo built > /etc/prism-marker\n")
    task = load_task(root)
    suite = Suite("test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 'built'\n")
    run = docker_engine.run(task, suite, RunOptions(sandbox="docker"))
    assert run.baseline.outcome == "fail"
    assert [r.outcome for _, r in run.results] == ["pass"]
    from prism_lsp.sandbox.docker_image import build_image

    start = time.monotonic()
    tag = build_image(task.dockerfile)
    assert tag.startswith("prism-task:") and time.monotonic() - start < 5  # cached by content digest
    backend = docker_engine.pool_for(task, "docker").backend
    assert backend.image == tag


def test_auto_prefers_docker_for_a_task_that_brings_an_image(cache_dir, docker_image):
    backend = resolve_backend("auto", cache_dir, image=docker_image)
    try:
        assert backend.name == "docker"
    finally:
        backend.close()


def test_test_command_task_runs_in_the_container(tmp_path, docker_engine):
    root = write_task(
        tmp_path / "task",
        extra_task="",
        initial={"run.sh": "echo 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"run.sh": "echo 2\n"}},
            {"id": "wrong", "label": "invalid", "files": {"run.sh": "echo 3\n"}},
        ],
    )
    task = load_task(root)
    from dataclasses import replace

    task = replace(task, test_command="sh tests/check.sh")
    suite = Suite("tests/check.sh", '[ "$(sh run.sh)" = 2 ]\n')
    run = docker_engine.run(task, suite, RunOptions(sandbox="docker"))
    assert run.baseline.outcome == "fail"
    assert {c.id: r.outcome for c, r in run.results} == {"reference": "pass", "wrong": "fail"}


def test_imported_terminal_bench_task_builds_its_dockerfile_and_runs(tmp_path, docker_engine):
    import contextlib
    import io

    from prism_lsp.cli import prism_main
    from prism_lsp.tasks.importers import import_task
    from tests.importers.helpers import run_report  # noqa: F401  (same helpers as the importer tests)
    from tests.importers.sample_tasks import terminal_bench

    task = import_task("terminal-bench", terminal_bench(tmp_path / "word-count"), tmp_path / "out")
    assert task.dockerfile is not None
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = prism_main(
            [
                "run",
                str(task.root),
                str(task.root / "tests" / "test_outputs.py"),
                "--json",
                "--sandbox",
                "docker",
                "--cache-dir",
                str(tmp_path / "cache"),
            ]
        )
    report = json.loads(buf.getvalue())
    assert report["baseline"]["outcome"] == "fail"
    assert {c["id"]: c["outcome"] for c in report["candidates"]} == {
        "reference": "pass",
        "awk": "pass",
        "counts-chars": "fail",
    }
    assert code == 0


def test_auto_picks_docker_on_a_machine_without_bubblewrap(tmp_path, docker_image):
    """A PATH with docker, git and patch but no bwrap: `auto` must choose the Docker engine."""
    import json
    import shutil
    import subprocess

    from tests.conftest import FIXTURES

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("docker", "git", "patch", "sh"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    task = FIXTURES / "mean-rounded"
    env = {**os.environ, "PATH": str(bin_dir), "PRISM_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [shutil.which("prism"), "run", str(task), str(task / "suites" / "test_strong.py"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["sandbox"] == "docker" and report["metrics"]["jsf"] is True

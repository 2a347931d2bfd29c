"""A task's own image is part of the task: broken ones are clear errors, never a run on the host.

Also the messages for images that cannot host the runner (no python3, no pytest)
and for a `FROM` base that is not on the engine (Prism never pulls).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_lsp.cli import prism_main
from prism_lsp.engine.pool import WARM, RunnerPool
from prism_lsp.sandbox import resolve_backend
from prism_lsp.sandbox.bubblewrap import probe
from prism_lsp.sandbox.docker_backend import DockerBackend
from prism_lsp.sandbox.docker_image import ImageUnavailable, base_images, build_image
from tests.conftest import write_task

pytestmark = pytest.mark.docker

SUITE = "from solution import f\n\ndef test_f():\n    assert f() == 2\n"


def _task(root: Path, extra_task: str) -> Path:
    return write_task(
        root,
        extra_task=extra_task,
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}}],
        suites={"initial/test_f.py": SUITE},
    )


def _dockerfile_task(root: Path, dockerfile: str) -> Path:
    task = _task(root, 'dockerfile = "env/Dockerfile"')
    (task / "env").mkdir()
    (task / "env" / "Dockerfile").write_text(dockerfile)
    return task


def _prism_run(task: Path, cache: Path, capsys, *extra: str) -> tuple[int, str, str]:
    code = prism_main(
        ["run", str(task), str(task / "initial" / "test_f.py"), "--json", "--cache-dir", str(cache), *extra]
    )
    out = capsys.readouterr()
    return code, out.out, out.err


def test_failed_build_under_auto_is_an_error_not_a_host_run(tmp_path, capsys, docker_image):
    task = _dockerfile_task(tmp_path / "task", f"FROM {docker_image}\nRUN echo prism-auto-broke && false\n")
    code, out, err = _prism_run(task, tmp_path / "cache", capsys)  # sandbox "auto", the default
    assert code == 2 and out == ""
    assert "building the Docker image from" in err and str(task / "env" / "Dockerfile") in " ".join(err.split())
    assert "prism-auto-broke" in err  # the failing step


def test_missing_image_under_auto_is_an_error_not_a_host_run(tmp_path, capsys):
    task = _task(tmp_path / "task", 'image = "prism-no-such-image:never"')
    code, out, err = _prism_run(task, tmp_path / "cache", capsys)
    assert code == 2 and out == ""
    assert "prism-no-such-image:never" in err and "is not present" in err


def test_auto_raises_image_unavailable_for_a_missing_image(cache_dir):
    with pytest.raises(ImageUnavailable, match="prism-no-such-image:never"):
        resolve_backend("auto", cache_dir, image="prism-no-such-image:never")


@pytest.mark.skipif(bool(probe()), reason=f"bubblewrap unavailable: {probe()}")
def test_without_a_docker_engine_auto_runs_on_the_host_with_a_warning(tmp_path, capsys, monkeypatch, docker_image):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/prism-docker.sock")
    task = _task(tmp_path / "task", f'image = "{docker_image}"')
    code, out, _ = _prism_run(task, tmp_path / "cache", capsys)
    report = json.loads(out)
    assert code == 0 and report["sandbox"] == "bubblewrap"
    assert len(report["warnings"]) == 1
    assert docker_image in report["warnings"][0] and "Docker is unavailable" in report["warnings"][0]


@pytest.mark.skipif(bool(probe()), reason=f"bubblewrap unavailable: {probe()}")
def test_explicit_bubblewrap_for_a_task_with_an_image_is_warned_about(tmp_path, capsys, docker_image):
    task = _task(tmp_path / "task", f'image = "{docker_image}"')
    code, out, _ = _prism_run(task, tmp_path / "cache", capsys, "--sandbox", "bubblewrap")
    report = json.loads(out)
    assert code == 0 and report["sandbox"] == "bubblewrap"
    assert any("brings its own environment" in w for w in report["warnings"])


def test_missing_from_base_says_prism_never_pulls(tmp_path, capsys):
    task = _dockerfile_task(tmp_path / "task", "FROM prism-no-such-base:never\nRUN true\n")
    code, out, err = _prism_run(task, tmp_path / "cache", capsys, "--sandbox", "docker")
    assert code == 2 and out == ""
    message = " ".join(err.split())
    assert "base image 'prism-no-such-base:never'" in message
    assert (
        "is not available locally and Prism never pulls; build or load it first (docker load / docker import)"
        in message
    )
    assert "registry-1.docker.io" not in message and "no such host" not in message


def test_base_images_skips_scratch_stages_and_args(tmp_path):
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(
        "# syntax=docker/dockerfile:1\nARG BASE=x\nFROM --platform=linux/amd64 \\\n"
        "    builder-base:1 AS build\nRUN true\nFROM build AS again\nFROM ${BASE}\n"
        "from scratch\nFROM runtime:2\n"
    )
    assert base_images(dockerfile) == ["builder-base:1", "runtime:2"]


def _warm_message(cache_dir: Path, dockerfile: Path) -> str:
    backend = DockerBackend(cache_dir, dockerfile=dockerfile)
    with RunnerPool(backend, workers=1) as pool:
        result = pool.submit(WARM).result()
    assert result.outcome == "error"
    return result.message


def test_image_without_python3_says_so(tmp_path, cache_dir, docker_image):
    dockerfile = tmp_path / "env" / "Dockerfile"
    dockerfile.parent.mkdir()
    dockerfile.write_text(f"FROM {docker_image}\nRUN rm -f /usr/bin/python3 /usr/bin/python3.*\n")
    message = _warm_message(cache_dir, dockerfile)
    tag = build_image(dockerfile)
    assert f"image {tag} (built from {dockerfile}) has no python3:" in message
    assert "JSONDecodeError" not in message


def test_image_without_pytest_says_so(tmp_path, cache_dir, docker_image):
    dockerfile = tmp_path / "env" / "Dockerfile"
    dockerfile.parent.mkdir()
    dockerfile.write_text(
        f"FROM {docker_image}\n"
        "RUN rm -rf /usr/lib/python3/dist-packages/pytest /usr/lib/python3/dist-packages/_pytest\n"
    )
    message = _warm_message(cache_dir, dockerfile)
    assert f"image {build_image(dockerfile)} (built from {dockerfile}) has no pytest for python3" in message

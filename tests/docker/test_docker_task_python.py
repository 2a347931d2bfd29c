"""A task's `python` under Docker is a path inside the image: it never mounts a host folder (issue 8, item 1)."""

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task
from tests.sandbox.venvs import fake_venv

SUITE = Suite("tests/test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")


def test_a_task_python_never_mounts_host_folders_into_docker(tmp_path, docker_engine):
    """In Docker a task's `python` is a path inside the image: the hostile venv of the bubblewrap test
    (home = /run) mounts nothing; the host's Docker socket stays out of the container."""
    python = fake_venv(tmp_path / "venv", "/run")
    root = write_task(
        tmp_path / "task",
        extra_task=f'timeout_s = 20\npython = "{python}"\n',
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {
                "id": "probe",
                "label": "invalid",
                "files": {
                    "solution.py": (
                        "import os\n\ndef f():\n"
                        "    raise AssertionError('SOCKET ' + str(os.path.exists('/run/docker.sock')"
                        " or os.path.exists('/var/run/docker.sock')))\n"
                    )
                },
            },
        ],
    )
    task = load_task(root)
    run = docker_engine.run(task, SUITE, RunOptions(sandbox="docker"))
    results = {c.id: r for c, r in run.results}
    # This venv links to Prism's own interpreter, so the image's python3 runs it: no host path is used.
    assert results["reference"].outcome == "pass", results["reference"]
    assert "SOCKET False" in results["probe"].tests[0].message, results["probe"]
    container = docker_engine.pool_for(task, "docker").backend.client.containers.get(
        docker_engine.pool_for(task, "docker").backend.container_ids[0]
    )
    mounts = {m["Destination"] for m in container.attrs["Mounts"]}
    assert not any(m.startswith(("/run", "/var/run")) or m == str(tmp_path / "venv") for m in mounts), mounts

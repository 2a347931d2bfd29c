"""The Docker sandbox gives the same verdicts as bubblewrap on the fixture tasks."""

from __future__ import annotations

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox.bubblewrap import probe
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES

pytestmark = pytest.mark.docker

# A couple of tasks keep this fast; bench/docker_overhead.py runs them all.
CASES = [(task, suite) for task in ("mean-rounded", "cart-total") for suite in ("test_strong.py", "test_overfit.py")]


def _outcomes(engine, task, suite, sandbox):
    run = engine.run(task, suite, RunOptions(sandbox=sandbox))
    return run.baseline.outcome, {c.id: r.outcome for c, r in run.results}


@pytest.mark.parametrize(("task_name", "suite_name"), CASES)
def test_docker_verdicts_equal_bubblewrap(task_name, suite_name, docker_engine):
    if probe():
        pytest.skip(f"bubblewrap unavailable for the comparison: {probe()}")
    task = load_task(FIXTURES / task_name)
    path = FIXTURES / task_name / "suites" / suite_name
    suite = Suite(task.suite_rel(path), path.read_text())
    docker = _outcomes(docker_engine, task, suite, "docker")
    bwrap = _outcomes(docker_engine, task, suite, "bubblewrap")
    assert docker == bwrap
    assert "error" not in docker[1].values()

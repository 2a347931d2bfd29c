"""Probe runs inside the Docker sandbox find the same witnesses as under bubblewrap."""

from __future__ import annotations

import pytest

from prism_lsp.tasks import load_task
from prism_lsp.witness import search_panel
from tests.conftest import FIXTURES

pytestmark = pytest.mark.docker


def test_docker_probes_find_the_same_witnesses(docker_engine, engine):
    task = load_task(FIXTURES / "mean-rounded")
    text = (FIXTURES / "mean-rounded" / "suites" / "test_weak.py").read_text()
    in_docker = search_panel(docker_engine, task, text, sandbox="docker").result.witnesses
    in_bwrap = search_panel(engine, task, text, sandbox="bubblewrap").result.witnesses
    assert (
        set(in_docker)
        == set(in_bwrap)
        == {"ceiling", "consumes-input", "forgets-last", "initial", "median", "trunc-negative"}
    )
    assert {k: w.call for k, w in in_docker.items()} == {k: w.call for k, w in in_bwrap.items()}

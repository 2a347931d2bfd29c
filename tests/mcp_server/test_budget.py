"""The run budget's count on disk: per task digest, shared by every server on the cache folder,
failing closed when the count cannot be read."""

from __future__ import annotations

import pytest

from prism_lsp.mcp_server.budget import BudgetSpent, RunBudget, task_digest
from prism_lsp.tasks import load_task
from tests.surface.buckets import bucket_task, write_suites


def test_a_suite_written_into_the_task_keeps_the_budget_and_a_new_panel_gets_its_own(tmp_path):
    task_dir = bucket_task(tmp_path / "task")
    before = task_digest(load_task(task_dir))
    write_suites(task_dir)  # an agent's suite file under the task folder
    assert task_digest(load_task(task_dir)) == before
    (task_dir / "candidates" / "i0" / "solution.py").write_text("def add(a, b):\n    return 0\n")
    assert task_digest(load_task(task_dir)) != before


def test_the_count_is_shared_and_a_bad_count_refuses_every_run(tmp_path):
    task = load_task(bucket_task(tmp_path / "task"))
    one, other = RunBudget(tmp_path / "budget", 2), RunBudget(tmp_path / "budget", 2)
    assert one.spend(task) == 1 and other.left(task) == 1 and other.spend(task) == 0
    with pytest.raises(BudgetSpent, match="spent"):
        one.spend(task)
    (path,) = (tmp_path / "budget").iterdir()
    path.write_text('{"runs": -3}')  # whoever wrote this, it is no fresh budget
    with pytest.raises(BudgetSpent, match="cannot be read"):
        one.spend(task)
    assert one.left(task) == 0

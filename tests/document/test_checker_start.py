"""Runners start early once per task, whichever of the server's paths gets there first: the first
run's `start_runners` and `didOpen`'s `prepare` race, and the "runners ready" line must still come
(real bubblewrap runners)."""

from __future__ import annotations

from pathlib import Path

from prism_lsp.document.checker import Checker
from prism_lsp.server.settings import Settings

SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "slugify" / "suites" / "test_weak.py"


def test_prepare_after_a_first_run_began_the_runners_still_waits_for_them_and_says_so(tmp_path):
    checker = Checker(tmp_path)
    try:
        task, _problem = checker.task_for(SUITE)
        assert task is not None
        checker.start_runners(task, Settings())  # the first run's path got there first
        prepared = checker.prepare(SUITE, Settings())
        assert prepared is not None and prepared[0].root == task.root and prepared[1] >= 1
        assert checker.prepare(SUITE, Settings()) is None  # said once per task
    finally:
        checker.close()

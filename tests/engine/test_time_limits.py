"""The time limit per program follows the reference's measured run, with the configured limit as
its floor, and a timeout says which setting raises it (a 576-test module timed out at the default
10 s on every program, and the message did not say how to raise it)."""

from __future__ import annotations

import time

from prism_lsp.engine import time_limits
from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

SLOW = """
import time
from calc import double

def test_double_slowly():
    time.sleep(1.5)  # every program's run takes longer than the task's 1 s
    assert double(3) == 6
"""

FAST = "from calc import double\n\ndef test_double():\n    assert double(3) == 6\n"


def task(tmp_path, candidates=()):
    return load_task(
        write_task(
            tmp_path / "task",
            extra_task="timeout_s = 1",
            initial={"calc.py": "def double(x):\n    return x + 1\n"},
            candidates=[
                {"id": "reference", "reference": True, "files": {"calc.py": "def double(x):\n    return 2 * x\n"}},
                *candidates,
            ],
        )
    )


def test_a_suite_whose_reference_takes_longer_than_the_limit_still_runs(tmp_path, engine):
    t = task(tmp_path)
    for _ in range(2):  # the second run starts at the limit the first one measured
        run = engine.run(t, Suite("tests/test_calc.py", SLOW), RunOptions(sandbox="bubblewrap"))
        assert run.baseline.outcome == "fail" and "assert 4 == 6" in run.baseline.tests[0].message
        assert [r.outcome for _, r in run.results] == ["pass"]
    measured = engine.pool_for(t, "bubblewrap").reference_seconds[("tests/test_calc.py", ())]
    assert 1.5 <= measured < time_limits.cap(1)


def test_a_hang_is_a_timeout_naming_the_setting_to_raise(tmp_path, engine):
    t = task(
        tmp_path,
        [{"id": "hangs", "label": "invalid", "files": {"calc.py": "def double(x):\n    while True:\n        pass\n"}}],
    )
    start = time.monotonic()
    report = engine.report(t, Suite("tests/test_calc.py", FAST), RunOptions(sandbox="bubblewrap"))
    hangs = next(c for c in report.candidates if c.id == "hangs")
    assert (hangs.outcome, hangs.reason) == ("error", "timeout")
    for setting in ("--timeout", "timeout_s", "prism.timeoutSeconds"):
        assert setting in hangs.message
    # A fast reference keeps the limit near the floor: the hang costs seconds, not the cap.
    assert time.monotonic() - start < time_limits.cap(1)


def test_the_derived_limit_has_the_configured_one_as_floor_and_a_cap():
    assert time_limits.derived(10, 0.2) == 10
    assert time_limits.derived(10, 17) == 52
    assert time_limits.derived(10, 1000) == time_limits.cap(10) == 100

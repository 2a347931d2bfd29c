"""Threads and process pools work in a judged run, and a limit Prism enforces is never a finding
against the suite (more-itertools' concurrency tests made Prism reject the real fix with "can't
start new thread" and tell its author to weaken a correct assertion)."""

from __future__ import annotations

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INITIAL = "def double(x):\n    return x + 1\n"
FIXED = "def double(x):\n    return 2 * x\n"

CONCURRENT = """
import concurrent.futures
import threading
from calc import double

def test_fifty_threads_at_once():
    barrier = threading.Barrier(50, timeout=30)
    out = []
    def work(i):
        barrier.wait()  # all fifty alive together
        out.append(double(i))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out) == [2 * i for i in range(50)]

def test_process_pool():
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        assert list(pool.map(double, range(6))) == [0, 2, 4, 6, 8, 10]
"""

TOO_MANY = """
import threading
from calc import double

def test_four_hundred_threads_at_once():
    barrier = threading.Barrier(401, timeout=30)
    threads = [threading.Thread(target=barrier.wait) for _ in range(400)]
    try:
        for t in threads:
            t.start()
        barrier.wait()
    finally:
        barrier.abort()
    assert double(2) == 4
"""


def task(tmp_path):
    return load_task(
        write_task(
            tmp_path / "task",
            initial={"calc.py": INITIAL},
            candidates=[{"id": "reference", "reference": True, "files": {"calc.py": FIXED}}],
        )
    )


def test_threads_and_a_process_pool_pass_on_the_reference(tmp_path, engine):
    report = engine.report(task(tmp_path), Suite("tests/test_calc.py", CONCURRENT), RunOptions(sandbox="bubblewrap"))
    assert report.baseline.outcome == "fail"
    assert [(c.outcome, [t.outcome for t in c.tests]) for c in report.candidates] == [("pass", ["pass", "pass"])]
    assert report.metrics.rar and not report.findings


def test_a_limit_prism_enforced_is_an_error_naming_the_setting_never_a_rejection(tmp_path, engine):
    report = engine.report(task(tmp_path), Suite("tests/test_calc.py", TOO_MANY), RunOptions(sandbox="bubblewrap"))
    reference = report.candidates[0]
    assert (reference.outcome, reference.reason) == ("error", "memory")
    assert "memory_mb" in reference.message and "could not start a thread" in reference.message
    assert "rejects-valid" not in {f.kind for f in report.findings}
    assert any(f.kind == "execution-error" and "memory_mb" in f.message for f in report.findings)


PROCESSES = """
import subprocess
from calc import double

def test_sixty_sleepers():
    sleepers = [subprocess.Popen(["sleep", "30"]) for _ in range(60)]
    for p in sleepers:
        p.kill()
        p.wait()
    assert double(2) == 4
"""


def test_the_process_limit_names_pids_max_and_raising_it_lets_the_suite_run(tmp_path, engine):
    suite = Suite("tests/test_calc.py", PROCESSES)
    tight = load_task(
        write_task(
            tmp_path / "tight",
            extra_task="pids_max = 40",
            initial={"calc.py": INITIAL},
            candidates=[{"id": "reference", "reference": True, "files": {"calc.py": FIXED}}],
        )
    )
    reference = engine.report(tight, suite, RunOptions(sandbox="bubblewrap")).candidates[0]
    assert (reference.outcome, reference.reason) == ("error", "process-limit")
    assert "pids_max" in reference.message
    roomy = load_task(
        write_task(
            tmp_path / "roomy",
            extra_task="pids_max = 128",
            initial={"calc.py": INITIAL},
            candidates=[{"id": "reference", "reference": True, "files": {"calc.py": FIXED}}],
        )
    )
    report = engine.report(roomy, suite, RunOptions(sandbox="bubblewrap"))
    assert report.baseline.outcome == "fail" and report.candidates[0].outcome == "pass"

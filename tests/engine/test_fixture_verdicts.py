"""Every fixture suite gives its expected verdicts through the real bubblewrap sandbox."""

import tomllib

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.judge.report import build_report
from prism_lsp.materialize.digest import tree_digest
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES

CASES = [
    (exp.parent.name, suite, want)
    for exp in sorted(FIXTURES.glob("*/expected.toml"))
    for suite, want in tomllib.loads(exp.read_text())["suites"].items()
]


def test_there_are_enough_fixture_tasks():
    tasks = {name for name, _, _ in CASES}
    assert len(tasks) >= 7
    for name in tasks:
        task = load_task(FIXTURES / name)
        assert sum(c.valid for c in task.candidates) == 5 and len(task.candidates) == 10
        assert task.reference.valid
    kinds = {c.kind for name in tasks for c in load_task(FIXTURES / name).candidates}
    assert kinds == {"patch", "overlay"}


@pytest.mark.parametrize("task_name,suite_name,want", CASES, ids=[f"{t}/{s}" for t, s, _ in CASES])
def test_fixture_suite_verdicts(engine, task_name, suite_name, want):
    task = load_task(FIXTURES / task_name)
    path = task.root / "suites" / suite_name
    before = tree_digest(task.root)
    suite = Suite(task.suite_rel(path), path.read_text())
    run = engine.run(task, suite, RunOptions(sandbox="bubblewrap"))
    report = build_report(task, suite, run)
    assert report.baseline.outcome == want["baseline"]
    accepted = sorted(c.id for c in report.candidates if c.verdict == "accepted")
    assert accepted == sorted(want["accepted"])
    assert all(c.outcome != "error" for c in report.candidates), [c.message for c in report.candidates]
    assert report.metrics.jsf is want["jsf"]
    if "rejects_valid_lines" in want:
        lines = sorted({f.line for f in report.findings if f.kind == "rejects-valid"})
        assert lines == sorted(want["rejects_valid_lines"])
        first = next(f for f in report.findings if f.kind == "rejects-valid")
        # every overfit fixture asserts `f(...) == <literal>`, so the message can say which side was expected
        assert "expected " in first.message and ", got " in first.message and first.candidates
    if want["baseline"] == "pass":
        assert any(f.kind == "misses-baseline" for f in report.findings)
    if (
        not want["jsf"]
        and want["baseline"] == "fail"
        and any(not c.valid and c.id in want["accepted"] for c in task.candidates)
    ):
        assert any(f.kind == "accepts-invalid" for f in report.findings)
    # The author's files are never written to.
    assert tree_digest(task.root) == before

"""An error of the suite's own making on the initial program detects it, as SWT-Bench's
fail-to-pass and TestPrism's r(b) count it; an error Prism made does not (DESIGN.md, metrics).

Real tasks through the real bubblewrap sandbox: a fix that adds a function and a test that
imports it; a hang the reference fixes; and a `prism init` repository whose fix adds a function.
"""

from __future__ import annotations

import json

from prism_lsp.judge.detection import detection
from prism_lsp.judge.findings import build_findings
from prism_lsp.model import outcome as model
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task
from tests.repo.gitrepo import make_repo, prism, run_json, write

NEW_FUNCTION_SUITE = Suite("suites/test_g.py", "from solution import g\n\n\ndef test_g():\n    assert g() == 2\n")


def new_function_task(tmp_path):
    return write_task(
        tmp_path / "newfn",
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {
                "id": "reference",
                "reference": True,
                "files": {"solution.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"},
            },
            {
                "id": "three",
                "label": "invalid",
                "files": {"solution.py": "def f():\n    return 1\n\n\ndef g():\n    return 3\n"},
            },
        ],
        suites={NEW_FUNCTION_SUITE.rel_path: NEW_FUNCTION_SUITE.text},
    )


def test_a_suite_importing_the_function_the_fix_adds_reaches_joint_success(tmp_path, engine):
    task = load_task(new_function_task(tmp_path))
    report = engine.report(task, NEW_FUNCTION_SUITE)
    assert report.baseline.outcome == "error" and report.baseline.reason == "collection"
    assert (report.metrics.detects_baseline, report.metrics.rar, report.metrics.jsf) == (True, True, True)
    assert report.detection == "`g` does not exist there"
    # The initial program's import error is the suite's verdict there, not a finding.
    assert [f.kind for f in report.findings] == []


def test_prism_run_says_why_the_initial_program_is_detected(tmp_path, capsys):
    root = new_function_task(tmp_path)
    code, out, err = prism(
        capsys, "run", str(root), str(root / NEW_FUNCTION_SUITE.rel_path), "--cache-dir", str(tmp_path / "cache")
    )
    assert code == 0, err
    assert "the suite detects the initial program because `g` does not exist there" in out
    assert "execution-error" not in out
    assert "detects baseline yes · RAR yes · JSF yes" in out


HANG_SUITE = Suite("tests/test_halve.py", "from solution import halve\n\n\ndef test_odd():\n    assert halve(3) == 1\n")


def test_a_hang_the_reference_fixes_detects_the_initial_program(tmp_path, engine):
    root = write_task(
        tmp_path / "hang",
        extra_task="timeout_s = 2",
        initial={
            "solution.py": "def halve(n):\n    q = 0\n    while n != 0:\n        n -= 2\n        q += 1\n    return q\n"
        },
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def halve(n):\n    return n // 2\n"}},
            {"id": "round-up", "label": "invalid", "files": {"solution.py": "def halve(n):\n    return -(-n // 2)\n"}},
        ],
    )
    report = engine.report(load_task(root), HANG_SUITE)
    assert report.baseline.outcome == "error" and report.baseline.reason == "timeout"
    assert report.metrics.detects_baseline and report.metrics.jsf
    assert report.detection.startswith("it times out there while the reference passes in ")
    assert report.detection.endswith(" s")
    assert not [f for f in report.findings if f.kind in ("execution-error", "misses-baseline")]


def _program(outcome, reason=None, message="", ms=0.0):
    return ProgramResult(
        outcome=outcome,
        reason=reason,
        message=message,
        duration_ms=ms,
        tests=(model.TestResult("test_g", outcome, reason=reason, def_line=4),) if outcome != "error" else (),
    )


def test_an_error_prism_made_on_the_initial_program_stays_an_execution_error():
    # A sandbox failure (the runner replaced, a tree that could not be placed) judged nothing.
    for reason in ("sandbox", "runner", "protocol", "cancelled", "materialize"):
        baseline = ProgramResult.error(reason, "the runner was replaced")
        assert detection(baseline, _program("pass", ms=200)) == ""
        found = build_findings(baseline, [], baseline_detects=bool(detection(baseline, _program("pass"))))
        assert [f.kind for f in found] == ["execution-error"] and "initial program" in found[0].message


def test_a_timeout_detects_only_when_the_reference_passes_in_time():
    hang = ProgramResult.error("timeout", "timed out after 2 s")
    assert detection(hang, _program("pass", ms=200)) == "it times out there while the reference passes in 0.2 s"
    assert (
        detection(hang, _program("pass", ms=200), with_values=False)
        == "it times out there while the reference passes in time"
    )
    assert detection(hang, ProgramResult.error("timeout", "timed out after 2 s")) == ""
    assert detection(hang, _program("fail")) == ""


def test_what_the_suite_imports_is_named():
    def why(message, reason="collection"):
        return detection(ProgramResult.error(reason, message), _program("pass"))

    assert why("ImportError: cannot import name 'g' from 'solution' (solution.py)") == "`g` does not exist there"
    assert why("ModuleNotFoundError: No module named 'shop.new'") == "module `shop.new` does not exist there"
    assert (
        why("error in setup: AttributeError: module 'calc' has no attribute 'sub'", "fixture")
        == "`calc.sub` does not exist there"
    )
    assert why("error in setup: ValueError: bad", "fixture") == "a fixture fails there: error in setup: ValueError: bad"


def test_prism_init_whose_fix_adds_a_function_reaches_joint_success(tmp_path, capsys):
    repo = make_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
    write(
        repo,
        {
            "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
        },
    )
    code, _, err = prism(capsys, "init", str(repo))
    assert code == 0, err
    report = run_json(capsys, repo / "tests/test_sub.py", "--cache-dir", str(tmp_path / "cache"))
    assert report["baseline"]["reason"] == "collection"
    assert report["metrics"]["detects_baseline"] and report["metrics"]["rar"] and report["metrics"]["jsf"], report
    assert report["detection"] == "`sub` does not exist there"
    assert json.dumps(report["findings"]) == "[]"


def test_the_editor_marks_the_initial_program_detected_and_says_why(tmp_path):
    from prism_lsp.document.checker import Checker
    from prism_lsp.document.programs import program_items
    from prism_lsp.server.settings import Settings

    root = new_function_task(tmp_path)
    path = root / NEW_FUNCTION_SUITE.rel_path
    checker = Checker(tmp_path / "cache")
    try:
        check = checker.run_panel(checker.analyze(path, 1, NEW_FUNCTION_SUITE.text, Settings()), Settings())
    finally:
        checker.close()
    initial = program_items(check)[0]
    assert initial["passed"] is True
    assert initial["label"] == "initial program (detected: `g` does not exist there)"

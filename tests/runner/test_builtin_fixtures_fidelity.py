"""Per-test outcomes in the warm runner equal plain pytest's on a suite that leans on pytest's
built-in fixtures and hooks — what the runner pays once per runner (`_prism_speedups`) and
the configuration it owns must not change a single outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

SUITE = """
import logging
import warnings
import pytest
from calc import half

@pytest.fixture(params=[2, 4])
def even(request):
    return request.param

@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    return tmp_path_factory.mktemp("shared")

def test_params(even):
    assert half(even) * 2 == even

def test_tmp(tmp_path, tmpdir, shared):
    (tmp_path / "x").write_text("1")
    assert (tmp_path / "x").read_text() == "1" and tmpdir.isdir() and shared.is_dir()

def test_capsys(capsys):
    print("hello")
    assert capsys.readouterr().out == "hello\\n"

def test_capfd(capfd):
    import os
    os.write(1, b"fd")
    assert capfd.readouterr().out == "fd"

def test_monkeypatch(monkeypatch):
    import calc
    monkeypatch.setattr(calc, "half", lambda x: 99)
    assert calc.half(2) == 99

def test_caplog(caplog):
    logging.getLogger("x").warning("careful")
    assert "careful" in caplog.text

def test_recwarn(recwarn):
    warnings.warn("w", UserWarning)
    assert len(recwarn) == 1

def test_raises():
    with pytest.raises(ZeroDivisionError):
        half(1) / 0

@pytest.mark.filterwarnings("error")
def test_warning_as_error():
    warnings.warn("boom", UserWarning)

def test_fails():
    assert half(5) == 3

@pytest.mark.xfail(strict=True)
def test_xfail_strict():
    assert half(4) == 2

@pytest.mark.skip(reason="not today")
def test_skipped():
    assert False

def test_request(request, pytestconfig):
    assert request.node.name == "test_request" and pytestconfig.rootpath.is_dir()
"""

PLAIN = """
import json, sys, pytest
outcomes = {}
class P:
    def pytest_runtest_logreport(self, report):
        name = report.nodeid.split("::", 1)[1]
        if report.failed:
            outcomes[name] = "fail" if report.when == "call" else "error"
        elif report.when == "call" or report.skipped:
            outcomes.setdefault(name, "pass")
pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]], plugins=[P()])
print(json.dumps(outcomes))
"""


def test_builtin_fixtures_and_marks_judge_as_in_plain_pytest(tmp_path, engine):
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": "def half(x):\n    return x // 2\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"calc.py": "def half(x):\n    return x // 2\n"}}],
    )
    run = engine.run(load_task(root), Suite("test_calc.py", SUITE), RunOptions(sandbox="bubblewrap"))
    ours = {t.name: t.outcome for t in run.baseline.tests}
    plain_dir = tmp_path / "plain"
    plain_dir.mkdir()
    (plain_dir / "calc.py").write_text("def half(x):\n    return x // 2\n")
    (plain_dir / "test_calc.py").write_text(SUITE)
    proc = subprocess.run(
        [sys.executable, "-c", PLAIN, "test_calc.py"],
        cwd=plain_dir,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        timeout=120,
    )
    plain = json.loads(proc.stdout.strip().splitlines()[-1])
    assert ours == plain
    assert ours["test_fails"] == "fail" and ours["test_warning_as_error"] == "fail"
    assert ours["test_params[2]"] == ours["test_params[4]"] == "pass"

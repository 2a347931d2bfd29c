"""A built-in plugin the runner switches off for speed is never one the run's set-up reaches:
a repository whose conftest asks for a fixture of `doctest`, `junitxml` or `cacheprovider` is
judged as plain pytest judges it (networkx's root conftest has an autouse fixture taking
`doctest_namespace`: every test of every program was an error)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

LIB = "def mean(xs):\n    return sum(xs) // len(xs)\n"
FIXED = "def mean(xs):\n    return sum(xs) / len(xs)\n"

SUITE = """
from stats import mean

def test_mean():
    assert mean([1, 2]) == 1.5

def test_whole():
    assert mean([2, 4]) == 3
"""

# networkx's shape: an autouse fixture of the root conftest asks for doctest's fixture.
DOCTEST_CONFTEST = """
import pytest
import stats

@pytest.fixture(autouse=True)
def add_stats(doctest_namespace):
    doctest_namespace["stats"] = stats
"""

# junitxml's and cacheprovider's fixtures, through a helper module the conftest imports from.
HELPER = """
import pytest

@pytest.fixture(autouse=True)
def remembered(record_property, request):
    record_property("example", "1")
    request.config.cache.set("prism/seen", request.node.name)
    yield
    assert request.config.cache.get("prism/seen", None) == request.node.name
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
pytest.main(["-q", sys.argv[1]], plugins=[P()])
print(json.dumps(outcomes))
"""

# No conftest: the runner sets the session up once for every program (`_prism_prepared`).
SUITE_ONLY = SUITE.replace(
    "def test_mean():",
    """def test_mean(cache, record_property):
    record_property("example", "1")
    cache.set("prism/seen", 1)""",
)

CASES = {
    "doctest": {"conftest.py": DOCTEST_CONFTEST},
    "suite-only": {"tests/test_stats.py": SUITE_ONLY},
    "junitxml-and-cache": {
        "conftest.py": "from testing.fixtures import remembered\n",
        "testing/__init__.py": "",
        "testing/fixtures.py": HELPER,
    },
}


def plain_outcomes(folder, files: dict[str, str]) -> dict[str, str]:
    """Per-test outcomes of one plain pytest process (no third-party plugins) in `folder`."""
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    proc = subprocess.run(
        [sys.executable, "-c", PLAIN, "tests/test_stats.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        timeout=120,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_conftest_reaching_a_builtin_plugin_is_judged_as_in_plain_pytest(tmp_path, engine, case):
    setup = dict(CASES[case])
    suite = setup.pop("tests/test_stats.py", SUITE)
    root = write_task(
        tmp_path / "task",
        initial={"stats.py": LIB, **setup},
        candidates=[{"id": "reference", "reference": True, "files": {"stats.py": FIXED}}],
    )
    run = engine.run(load_task(root), Suite("tests/test_stats.py", suite), RunOptions(sandbox="bubblewrap"))
    reference = dict(run.results)[next(c for c, _ in run.results if c.reference)]
    ours = {
        "initial": {t.name: t.outcome for t in run.baseline.tests},
        "reference": {t.name: t.outcome for t in reference.tests},
    }
    plain = {
        "initial": plain_outcomes(tmp_path / "plain-initial", {"stats.py": LIB, **setup, "tests/test_stats.py": suite}),
        "reference": plain_outcomes(
            tmp_path / "plain-reference", {"stats.py": FIXED, **setup, "tests/test_stats.py": suite}
        ),
    }
    assert plain == {
        "initial": {"test_mean": "fail", "test_whole": "pass"},
        "reference": {"test_mean": "pass", "test_whole": "pass"},
    }
    assert ours == plain
    assert (run.baseline.outcome, reference.outcome) == ("fail", "pass")


def test_a_set_up_too_large_to_read_keeps_every_plugin_on(tmp_path):
    """A conftest importing from a chain of modules longer than the runner reads: unsure, so
    nothing is switched off (the last module asks for `doctest_namespace`)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "prism_lsp" / "runner"))
    try:
        import _prism_plugins as plugins
        from _prism_child import PLUGINS_OFF
    finally:
        sys.path.pop(0)
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "conftest.py").write_text("from pkg.m0 import *\n")
    (tree / "pkg" / "__init__.py").write_text("")
    count = plugins.MAX_FILES + 5
    for i in range(count):
        body = f"from pkg.m{i + 1} import *\n" if i + 1 < count else "def f(doctest_namespace):\n    pass\n"
        (tree / "pkg" / f"m{i}.py").write_text(body)
    (tree / "tests").mkdir()
    args = ("tests/test_x.py", "def test_x():\n    pass\n", None, str(tree), [])
    assert plugins.switched_off(PLUGINS_OFF, *args) == []
    plain = tmp_path / "plain"  # trees are content-addressed: another content, another folder
    (plain / "tests").mkdir(parents=True)
    (plain / "conftest.py").write_text("import pytest\nfrom pkg import m0\n")
    assert plugins.switched_off(PLUGINS_OFF, *args[:3], str(plain), []) == PLUGINS_OFF

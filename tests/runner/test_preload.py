"""Standard-library modules a program imported are imported once in the runner for the next
programs (`_prism_preload`), and that never changes what a program runs: a tree holding a module
named like a preloaded one gets its own, as under plain pytest. Real runner in the real sandbox;
the policy in-process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from prism_lsp.runner import _prism_preload as preload
from tests.conftest import write_task
from tests.runner.test_program_code import _one_runner, _results

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap sandbox")

CALC = "def half(x):\n    return x // 2\n"
# Whether asyncio was loaded before this program imported anything: pytest itself never imports it.
SUITE = """\
import sys

LOADED_BEFORE = "asyncio" in sys.modules
import unittest.mock  # imports asyncio

from calc import half


def test_half():
    assert half(4) == 2


def test_asyncio_was_loaded_before():
    assert LOADED_BEFORE
"""
# A program whose own `asyncio.py` plain Python imports instead of the standard library's.
SHADOW = "VALUE = 'the tree'\n"
SHADOW_SUITE = """\
import asyncio


def test_own_asyncio():
    assert getattr(asyncio, "VALUE", None) == "the tree"
"""


def _task(root: Path, candidate_files: dict[str, str]):
    from prism_lsp.tasks import load_task

    return load_task(
        write_task(
            root,
            initial={"calc.py": CALC},
            candidates=[{"id": "c0", "reference": True, "files": {"calc.py": CALC, **candidate_files}}],
        )
    )


def _outcomes(results) -> list[dict[str, str]]:
    return [{t.name: t.outcome for t in r.tests} for r in results]


def test_a_module_one_program_imported_is_loaded_for_the_next(tmp_path, engine):
    task = _task(tmp_path / "task", {})
    with _one_runner(engine, task) as pool:
        first = _results(engine, pool, task, SUITE)
        later = _results(engine, pool, task, SUITE)
    # The initial program's child imported asyncio itself; every child after it found it loaded.
    assert _outcomes(first) == [
        {"test_half": "pass", "test_asyncio_was_loaded_before": "fail"},
        {"test_half": "pass", "test_asyncio_was_loaded_before": "pass"},
    ]
    assert _outcomes(later)[0]["test_asyncio_was_loaded_before"] == "pass"


def test_a_tree_with_its_own_module_of_that_name_imports_its_own(tmp_path, engine):
    task = _task(tmp_path / "task", {"asyncio.py": SHADOW})
    with _one_runner(engine, task) as pool:
        _results(engine, pool, task, SUITE)  # the runner now holds the standard library's asyncio
        shadowed = _results(engine, pool, task, SHADOW_SUITE)
    # The initial program has no asyncio.py: the standard library's. The candidate's is its own.
    assert _outcomes(shadowed) == [{"test_own_asyncio": "fail"}, {"test_own_asyncio": "pass"}]


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("asyncio", True),
        ("unittest.mock", True),
        ("concurrent.futures.process", True),
        ("unittest.__main__", False),  # runs the tests at import
        ("asyncio.__main__", False),  # starts a REPL
        ("unittest.test.test_case", False),
        ("antigravity", False),  # opens a browser
        ("this", False),  # prints
        ("numpy", False),  # not the standard library: starts a thread at import
        ("asyncio..events", False),
        ("asyncio.événements ", False),
        ("x" * 300, False),
    ],
)
def test_what_a_child_may_ask_the_runner_to_import(name, allowed):
    assert preload.allowed(name) is allowed


def test_an_import_that_warns_is_undone_and_not_tried_again(tmp_path, monkeypatch):
    package = tmp_path / "lib"
    package.mkdir()
    (package / "noisy.py").write_text("import warnings\nwarnings.warn('at import', DeprecationWarning)\n")
    monkeypatch.syspath_prepend(str(package))
    monkeypatch.setattr(preload, "PRELOADABLE", preload.PRELOADABLE | {"noisy"})
    monkeypatch.setattr(preload, "_stdlib_path", lambda path: True)  # as if it were the standard library's
    monkeypatch.setattr(preload, "_refused", set())
    assert preload.preload(["noisy"]) == 0
    assert "noisy" not in sys.modules
    assert "noisy" in preload._refused


def test_a_childs_report_is_capped_and_filtered():
    preload._wanted.clear()
    preload.learn(["antigravity", "queue", 3, "unittest.__main__", *[f"email.m{i}" for i in range(1000)]])
    assert "queue" in preload._wanted
    assert "antigravity" not in preload._wanted and "unittest.__main__" not in preload._wanted
    assert len(preload._wanted) <= preload.MAX_WANTED
    preload._wanted.clear()

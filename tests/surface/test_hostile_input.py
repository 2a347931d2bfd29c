"""Hostile task folders and documents are clear errors within bounded work, never tracebacks:
a deeply nested prism.toml, a file name that is not UTF-8, a document too large, an
expression nested 20,000 deep."""

from __future__ import annotations

import os
import subprocess
import sys

from prism_lsp.analysis.limits import MAX_DOCUMENT_BYTES, MAX_NESTING
from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.analysis.weak_assertions import static_findings
from prism_lsp.document.checker import Checker
from prism_lsp.server.diagnostics import build_diagnostics
from prism_lsp.server.settings import Settings
from tests.conftest import ROOT
from tests.surface.forger import SUITE, forger_task
from tests.surface.hostile_suites import deep as _deep
from tests.surface.hostile_suites import many_tests as _many_tests

PRISM = [sys.executable, "-c", "from prism_lsp.cli import prism_main; prism_main()"]


def prism(*args: str, cache) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PRISM, *args, "--cache-dir", str(cache)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_a_deeply_nested_manifest_is_a_clear_error(tmp_path):
    task = forger_task(tmp_path / "task")
    manifest = task / "prism.toml"
    manifest.write_text(manifest.read_text() + "\n[extra]\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    for command in (["check", str(task)], ["run", str(task), str(task / SUITE)]):
        proc = prism(*command, cache=tmp_path / "cache")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == f"error: {manifest}: invalid TOML: arrays or tables nested too deeply"


def test_a_file_name_that_is_not_utf8_in_the_initial_tree_still_runs(tmp_path):
    task = forger_task(tmp_path / "task")
    with open(os.path.join(os.fsencode(task / "initial"), b"caf\xe9.txt"), "wb") as fh:
        fh.write(b"data")
    proc = prism("run", str(task), str(task / SUITE), "--json", cache=tmp_path / "cache")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and '"outcome": "fail"' in proc.stdout


def test_a_document_too_large_is_not_analysed_nor_run(tmp_path):
    text = _many_tests(MAX_DOCUMENT_BYTES + 1000)
    smap = parse_suite(text)
    assert smap.tests == [] and smap.problem == f"the document is too large ({len(text.encode()) / 1e6:.1f} > 1.0 MB)"
    assert static_findings(smap) == []
    task = forger_task(tmp_path / "task")
    path = task / "test_big.py"
    path.write_text(text)
    proc = prism("run", str(task), str(path), cache=tmp_path / "cache")
    assert proc.returncode == 2 and proc.stderr.strip() == f"error: suite {path} not run: {smap.problem}"
    # The server says so too: `not run: ...` in the status and as a diagnostic, and runs nothing.
    checker = Checker(tmp_path / "cache")
    try:
        check = checker.check(path, 1, text, Settings())
    finally:
        checker.close()
    assert (check.state.kind, check.state.reason) == ("not-run", smap.problem) and check.run is None
    (diag,) = build_diagnostics(check, Settings())
    assert diag.message == f"not run: {smap.problem}" and diag.range.start.line == 0


def test_a_document_just_under_the_limit_is_analysed():
    text = _many_tests(MAX_DOCUMENT_BYTES - 2000)
    smap = parse_suite(text)
    assert smap.problem is None and len(smap.tests) > 10_000


def test_an_expression_nested_20000_deep_is_a_clear_message_not_a_recursion_error(tmp_path):
    text = _deep(20_000)
    smap = parse_suite(text)
    assert smap.problem == f"the document nests code more than {MAX_NESTING} levels deep (line 5)"
    assert static_findings(text) == [] and static_findings(smap) == []
    checker = Checker(tmp_path / "cache")
    try:
        check = checker.analyze(forger_task(tmp_path / "task") / "test_deep.py", 1, text, Settings())
    finally:
        checker.close()
    assert (check.state.kind, check.state.reason) == ("not-run", smap.problem)
    assert [d.message for d in build_diagnostics(check, Settings())] == [f"not run: {smap.problem}"]


def test_nesting_below_the_limit_is_analysed_without_recursion_errors():
    text = _deep(MAX_NESTING - 20)
    smap = parse_suite(text)
    assert smap.problem is None and [t.name for t in smap.tests] == ["test_deep"]
    static_findings(smap)  # walks every assertion recursively: must not raise

"""Findings -> diagnostics, without LSP transport: a real check of a buffer (see `unit_check`),
then `build_diagnostics` called directly."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types

from prism_lsp.analysis.ignores import ignored_kinds
from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.document.check import Check
from prism_lsp.document.checker import Checker
from prism_lsp.server.diagnostics import Options, build_diagnostics
from prism_lsp.server.settings import Settings
from tests.document.recorded import BLIND as BLIND_RECORDING
from tests.document.recorded import TASK, TEXT, at_reveal, leaks, recorded_check

Sev = types.DiagnosticSeverity
RANGE = types.Range
POS = types.Position


def of(diags: list[types.Diagnostic], kind: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == kind]


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return RANGE(POS(l1, c1), POS(l2, c2))


def test_rejects_valid_covers_the_whole_multi_line_assert(unit_check):
    diags = build_diagnostics(unit_check, Settings())
    first = of(diags, "rejects-valid")[0]
    assert first.range == rng(8, 4, 10, 10)  # `assert mean_rounded(` … `) == 3`
    assert first.source == "prism" and first.severity == Sev.Warning
    # Plain text: the report's markdown code spans lose their backticks (issue 23 item 12).
    assert first.message == (
        "rejects valid candidates half-even (rounds half to even on an exact Fraction), half-down (rounds half "
        "down (ceil of mean - 1/2)), statistics (round(statistics.mean(...)), banker's rounding on floats) — "
        "expected 3, got 2 from half-even, half-down, statistics. "
        "The statement allows this behaviour; assert only what it requires."
    )
    assert first.data == {
        "kind": "rejects-valid",
        "rule": None,
        "candidates": ["half-even", "half-down", "statistics"],
        "tests": ["test_halfway"],
    }


def test_accepts_invalid_is_said_once_on_the_test_a_check_can_go_into(unit_check):
    # Issue 23 item 11: the same candidates were reported on each of the 5 tests reaching their
    # change (5 diagnostics, 5 lines in Problems). Once now, on the one test every valid candidate
    # passes (test_whole_mean: where the quick fix adds its check), naming the others.
    diags = of(build_diagnostics(unit_check, Settings()), "accepts-invalid")
    assert [d.range for d in diags] == [rng(3, 4, 3, 19)]
    assert diags[0].severity == Sev.Information
    assert diags[0].message.startswith("lets invalid candidates trunc-negative (")
    assert diags[0].message.endswith(
        " through; test_halfway, test_ignored_kind, test_ignored_all, test_accents reach it too. "
        "It reaches the bug but does not judge it: strengthen this check."
    )
    assert diags[0].data["candidates"] == ["trunc-negative", "consumes-input", "ceiling"]
    assert diags[0].data["tests"][0] == "test_whole_mean" and len(diags[0].data["tests"]) == 5


def test_ignore_comments_silence_their_kind_or_every_kind(unit_check):
    diags = build_diagnostics(unit_check, Settings())
    lines = [d.range.start.line + 1 for d in of(diags, "rejects-valid")]
    # 15 has `# prism: ignore[rejects-valid]`, 19 a bare `# prism: ignore`; 9 and 23 are not ignored
    assert lines == [9, 23]
    assert {f.line for f in unit_check.report.findings if f.kind == "rejects-valid"} == {9, 15, 19, 23}
    # the specific ignore leaves other kinds on its line alone
    for comment, kept in (("# prism: ignore[rejects-valid]", [4]), ("# prism: ignore[accepts-invalid]", [])):
        text = TEXT.replace("def test_whole_mean():\n", f"def test_whole_mean():  {comment}\n")
        edited = dataclasses.replace(unit_check, text=text, suite_map=parse_suite(text), ignores=ignored_kinds(text))
        found = of(build_diagnostics(edited, Settings()), "accepts-invalid")
        assert [d.range.start.line + 1 for d in found] == kept


def test_an_ignore_on_any_line_of_a_multi_line_assert_silences_it(unit_check):
    text = TEXT.replace("    ) == 3\n", "    ) == 3  # prism: ignore[rejects-valid]\n")
    edited = dataclasses.replace(unit_check, text=text, suite_map=parse_suite(text), ignores=ignored_kinds(text))
    assert [d.range.start.line + 1 for d in of(build_diagnostics(edited, Settings()), "rejects-valid")] == [23]
    other = TEXT.replace("    ) == 3\n", "    ) == 3  # prism: ignore[accepts-invalid]\n")
    edited = dataclasses.replace(unit_check, text=other, suite_map=parse_suite(other), ignores=ignored_kinds(other))
    assert [d.range.start.line + 1 for d in of(build_diagnostics(edited, Settings()), "rejects-valid")] == [9, 23]


def test_severities_come_from_the_settings(unit_check):
    settings = Settings(
        severity={
            "rejects-valid": "error",
            "accepts-invalid": "hint",
            "misses-baseline": "warning",
            "execution-error": "error",
            "weak-assertion": "hint",
        }
    )
    diags = build_diagnostics(unit_check, settings)
    assert {d.severity for d in of(diags, "rejects-valid")} == {Sev.Error}
    assert {d.severity for d in of(diags, "accepts-invalid")} == {Sev.Hint}


@pytest.mark.parametrize("encoding,start,end", [("utf-16", 20, 53), ("utf-8", 25, 58), ("utf-32", 19, 52)])
def test_columns_after_non_ascii_text_follow_the_position_encoding(unit_check, encoding, start, end):
    # line 23: `    label = "é€𝄞"; assert …` — é and € are one UTF-16 unit, 𝄞 two; in UTF-8: 2, 3 and 4 bytes
    diags = build_diagnostics(unit_check, Settings(), Options(encoding=encoding))
    assert of(diags, "rejects-valid")[-1].range == rng(22, start, 22, end)


def test_related_information_names_real_candidate_files_only_when_the_client_supports_it(unit_check):
    diags = build_diagnostics(unit_check, Settings(), Options(related_information=True))
    rv = of(diags, "rejects-valid")[0]
    assert [r.message for r in rv.related_information] == [
        "valid candidate half-even changes solution.py: rounds half to even on an exact Fraction",
        "valid candidate half-down changes solution.py: rounds half down (ceil of mean - 1/2)",
        "valid candidate statistics changes solution.py: round(statistics.mean(...)), banker's rounding on floats",
    ]
    for related in rv.related_information:
        path = Path(unquote(urlparse(related.location.uri).path))
        assert path.is_file() and path.name == "solution.py" and path != TASK / "initial" / "solution.py"
        changed = path.read_text().splitlines()[related.location.range.start.line]
        assert changed.strip()  # a real line of the candidate's source
    assert all(d.related_information is None for d in build_diagnostics(unit_check, Settings(), Options(False)))


@pytest.mark.parametrize("reveal", ["labels"])
def test_below_full_no_candidate_id_related_file_or_value_appears(unit_check, reveal):
    check = at_reveal(unit_check, reveal)
    diags = build_diagnostics(check, Settings(), Options(related_information=True))
    assert of(diags, "rejects-valid") and of(diags, "accepts-invalid")
    assert all(d.related_information is None for d in diags)
    assert all(d.data.get("candidates", []) == [] for d in diags)
    shown = json.dumps([[d.message, d.data] for d in diags])
    assert not leaks(shown)
    assert "expected" not in shown and "got" not in shown and "assert 2 == 3" not in shown


@pytest.mark.parametrize("reveal", ["counts", "sealed"])
def test_below_labels_no_diagnostic_comes_from_a_candidates_run(unit_check, reveal):
    # A rejects-valid diagnostic on a line says which candidates that line rejects (issue 21):
    # only the initial program's findings and the static hints remain.
    diags = build_diagnostics(at_reveal(unit_check, reveal), Settings(), Options(related_information=True))
    full = build_diagnostics(unit_check, Settings())
    kept = ("misses-baseline", "weak-assertion")
    assert of(full, "rejects-valid") and of(full, "accepts-invalid")
    assert {d.code for d in diags} <= set(kept)
    assert [d.range for d in diags] == [d.range for d in full if d.code in kept]


@pytest.mark.parametrize("reveal", ["labels"])
def test_below_full_the_candidates_are_counted_on_their_assertion(unit_check, reveal):
    diags = build_diagnostics(at_reveal(unit_check, reveal), Settings())
    rv = of(diags, "rejects-valid")
    assert rv[0].range == rng(8, 4, 10, 10)
    assert (
        rv[0].message
        == "rejects 3 valid candidates. The statement allows this behaviour; assert only what it requires."
    )
    full = of(build_diagnostics(unit_check, Settings()), "accepts-invalid")
    assert [d.range for d in of(diags, "accepts-invalid")] == [d.range for d in full]


BLIND = TASK / "suites" / "test_blind.py"


@pytest.fixture(scope="module")
def blind_check(tmp_path_factory) -> Check:
    return recorded_check(tmp_path_factory.mktemp("blind-cache"), recording=BLIND_RECORDING)


def test_misses_baseline_sits_on_each_passing_tests_name(blind_check):
    diags = of(build_diagnostics(blind_check, Settings()), "misses-baseline")
    assert [d.range for d in diags] == [rng(3, 4, 3, 20), rng(9, 4, 9, 27)]
    assert all(d.severity == Sev.Warning and "initial (buggy) program" in d.message for d in diags)
    assert [d.data["tests"] for d in diags] == [["test_exact_means"], ["test_input_not_modified"]]


def test_syntax_errors_and_static_hints_need_no_run(tmp_path):
    text = "from solution import mean_rounded\n\n\ndef test_type():\n    assert isinstance(mean_rounded([1]), int)\n\n\ndef test_broken(:\n    pass\n"
    checker = Checker(tmp_path)
    try:
        check = checker.analyze(TASK / "suites" / "test_static.py", 1, text, Settings())
    finally:
        checker.close()
    diags = build_diagnostics(check, Settings())
    assert check.report is None
    (err,) = of(diags, "execution-error")
    assert err.severity == Sev.Error and err.range.start.line == 7 and err.data["rule"] == "syntax"
    (weak,) = of(diags, "weak-assertion")
    assert weak.severity == Sev.Hint and weak.range.start.line == 4 and weak.data["tests"] == ["test_type"]

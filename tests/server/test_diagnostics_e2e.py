"""End to end: the real server over stdio, the real sandbox, the fixtures' suites."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.server.harness import FIXTURES, edit_line, expected, of_kind, open_doc, replace_all

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


async def test_overfit_assert_gets_rejects_valid_then_clears_when_permissive(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1, "rejects-valid")
    (rv,) = of_kind(diags, "rejects-valid")
    line = expected("mean-rounded")["suites"]["test_overfit.py"]["rejects_valid_lines"][0]
    text = OVERFIT.read_text().splitlines()[line - 1]
    assert rv.range == types.Range(types.Position(line - 1, 4), types.Position(line - 1, len(text)))
    assert rv.source == "prism" and rv.severity == types.DiagnosticSeverity.Warning
    for cid in ("half-even", "half-down", "statistics"):
        assert cid in rv.message and "`" not in rv.message  # plain text (issue 23 item 12)
    assert "expected 3, got 2 from half-even, half-down, statistics" in rv.message
    assert "assert only what it requires" in rv.message
    related = rv.related_information or []
    assert related and all(Path(types_uri_path(r.location.uri)).is_file() for r in related)
    assert of_kind(diags, "accepts-invalid"), "trunc-negative and consumes-input get through"

    edit_line(client, uri, 2, line - 1, text, text.replace("== 3", "in (2, 3)"))
    diags = await rec.final_diagnostics(uri, 2, "rejects-valid")
    assert not of_kind(diags, "rejects-valid")
    assert rec.versions(uri)[-1] == 2


def types_uri_path(uri: str) -> str:
    from pygls.uris import to_fs_path

    return to_fs_path(uri) or ""


@pytest.mark.parametrize("task", sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.toml").exists()))
async def test_every_fixture_overfit_line(client, task):
    suite = FIXTURES / task / "suites" / "test_overfit.py"
    uri = open_doc(client, suite)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    lines = sorted({d.range.start.line + 1 for d in of_kind(diags, "rejects-valid")})
    assert lines == expected(task)["suites"]["test_overfit.py"]["rejects_valid_lines"]


async def test_blind_suite_misses_baseline_on_each_test(client):
    suite = FIXTURES / "mean-rounded" / "suites" / "test_blind.py"
    uri = open_doc(client, suite)
    diags = await client.recorder.final_diagnostics(uri, 1, "misses-baseline")
    names = {
        suite.read_text().splitlines()[d.range.start.line][d.range.start.character : d.range.end.character]
        for d in of_kind(diags, "misses-baseline")
    }
    assert names == {"test_exact_means", "test_input_not_modified"}


async def test_syntax_error_is_reported_without_running_and_server_survives(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    runs_before = sum(s["state"] == "running" for s in rec.statuses)
    broken = OVERFIT.read_text().replace("def test_halfway():", "def test_halfway(:")
    replace_all(client, uri, 2, broken)
    diags = await rec.final_diagnostics(uri, 2, "execution-error")
    errors = of_kind(diags, "execution-error")
    assert errors and errors[0].severity == types.DiagnosticSeverity.Error
    assert "syntax" in errors[0].message.lower() and errors[0].range.start.line == 12
    assert sum(s["state"] == "running" for s in rec.statuses) == runs_before, "nothing ran"
    replace_all(client, uri, 3, OVERFIT.read_text())
    diags = await rec.final_diagnostics(uri, 3, "rejects-valid")
    assert of_kind(diags, "rejects-valid") and not of_kind(diags, "execution-error")


async def test_twenty_rapid_edits_publish_only_the_last_version(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    start = len(rec.versions(uri))
    text = OVERFIT.read_text()
    for version in range(2, 22):
        text = (
            text.replace("== 3", f"== 3  # edit {version}")
            if version == 2
            else text.replace(f"# edit {version - 1}", f"# edit {version}")
        )
        replace_all(client, uri, version, text)
    await rec.final_diagnostics(uri, 21, "rejects-valid")
    assert set(rec.versions(uri)[start:]) == {21}

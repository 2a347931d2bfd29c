"""End to end: what the editor shows while the buffer changes — static diagnostics on every edit,
findings that still hold carried over, and a status that never stays "running"."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.harness import FIXTURES, of_kind, open_doc, replace_all

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
WEAK_TEST = "\n\ndef test_type():\n    assert isinstance(mean_rounded([1, 2]), int)\n"


def _seq_of(rec, item) -> int:
    return next(seq for seq, logged in rec.log if logged is item)


async def test_an_edit_publishes_static_diagnostics_before_the_panel_runs(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    edited = len(rec.log)
    replace_all(client, uri, 2, OVERFIT.read_text() + WEAK_TEST)
    first = await rec.until(lambda: next((p for p in rec.publications if p.uri == uri and p.version == 2), None))
    between = [s for seq, s in rec.log[edited : _seq_of(rec, first)] if isinstance(s, dict) and s["uri"] == uri]
    assert not any(s["state"] == "running" for s in between), "published before the panel run, not after it"
    diags = list(first.diagnostics)
    (weak,) = of_kind(diags, "weak-assertion")
    assert weak.range.start.line == OVERFIT.read_text().count("\n") + 3
    # test_halfway did not change: its rejects-valid still holds; accepts-invalid is about the
    # whole suite, which gained a test: it stays until the run replaces it (no flicker).
    assert [d.range.start.line for d in of_kind(diags, "rejects-valid")] == [13]
    assert of_kind(diags, "accepts-invalid")
    final = await rec.final_diagnostics(uri, 2)
    assert of_kind(final, "weak-assertion") and of_kind(final, "rejects-valid")


@pytest.mark.settings({"runOn": "save", "debounceMs": 0})
async def test_run_on_save_still_shows_syntax_errors_while_typing(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    runs = sum(s["state"] == "running" for s in rec.statuses)
    replace_all(client, uri, 2, OVERFIT.read_text().replace("def test_halfway():", "def test_halfway(:"))
    diags = await rec.diagnostics(uri, 2)
    (error,) = of_kind(diags, "execution-error")
    assert "syntax" in error.message and error.range.start.line == 12
    assert sum(s["state"] == "running" for s in rec.statuses) == runs, "no run without a save"


@pytest.mark.settings({"runOn": "save", "debounceMs": 0})
async def test_an_edit_during_a_run_on_save_ends_the_running_status(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    running = await rec.until(
        lambda: next((s for s in rec.statuses if s["uri"] == uri and s["state"] == "running"), None)
    )
    replace_all(client, uri, 2, OVERFIT.read_text().replace("== 3", "in (2, 3)"))
    after = _seq_of(rec, running)
    ended = await rec.until(
        lambda: next(
            (s for seq, s in rec.log[after:] if isinstance(s, dict) and s["uri"] == uri and s["state"] != "running"),
            None,
        ),
        timeout=60,
    )
    assert ended["state"] == "idle" and "changed since the last save" in ended["message"]
    assert not any(p.version == 1 for p in rec.publications[1:] if p.uri == uri), "the stale run is not published"


async def test_a_syntax_error_says_not_run_in_the_lens_and_the_status(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT, OVERFIT.read_text().replace("def test_halfway():", "def test_halfway(:"))
    diags = await rec.final_diagnostics(uri, 1)
    assert of_kind(diags, "execution-error")
    status = [s for s in rec.statuses if s["uri"] == uri][-1]
    assert (status["state"], status["message"]) == ("idle", "not run: the buffer has a syntax error (line 13)")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert lenses[0].command.title == "Prism: not run: the buffer has a syntax error (line 13)"


async def test_after_a_syntax_error_the_status_keeps_the_last_runs_counts_and_the_log_says_why(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1)
    replace_all(client, uri, 2, OVERFIT.read_text().replace("def test_halfway():", "def test_halfway(:"))
    await rec.final_diagnostics(uri, 2)
    status = [s for s in rec.statuses if s["uri"] == uri][-1]
    assert status["state"] == "idle" and status["message"] == (
        "not run: the buffer has a syntax error (line 13); the counts are from the last run (version 1)"
    )
    assert status["metrics"]["jsf"] is False and status["valid"] == {"accepted": 1, "total": 4}
    logged = [m.message for m in client.log_messages if "test_overfit.py" in m.message]
    assert any(line.startswith("test_overfit.py v1: idle") and "panel" in line and " ms" in line for line in logged)
    assert any(line.startswith("test_overfit.py v2: idle (not run: the buffer has a syntax error") for line in logged)


async def test_an_edit_that_changes_no_diagnostic_is_published_once_after_its_run(client):
    """The static publication before a run is left out when it equals what the editor shows: on a
    589-test module it is 600 diagnostics built and encoded while the run waits."""
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    shown = await rec.final_diagnostics(uri, 1, "rejects-valid")
    replace_all(client, uri, 2, OVERFIT.read_text().replace("def test_halfway():", "def test_halfway():  # why"))
    final = await rec.final_diagnostics(uri, 2)
    (only,) = [(seq, p) for seq, p in rec.log if isinstance(p, types.PublishDiagnosticsParams) and p.version == 2]
    ran = [seq for seq, s in rec.log if isinstance(s, dict) and s["uri"] == uri and s["state"] == "running"]
    assert only[0] > ran[-1], "the one publication is the run's"
    assert final == shown

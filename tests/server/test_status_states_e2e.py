"""End to end: the status never passes an error or old numbers off as a current verdict."""

from __future__ import annotations

import pytest

from tests.server.harness import FIXTURES, open_doc, replace_all

SUITES = FIXTURES / "mean-rounded" / "suites"
OVERFIT = SUITES / "test_overfit.py"


@pytest.mark.settings({"debounceMs": 0})
async def test_an_import_error_is_an_error_state_not_a_verdict(client):
    rec = client.recorder
    text = "from solution import no_such_function\n\n\ndef test_it():\n    assert no_such_function([1]) == 1\n"
    uri = open_doc(client, SUITES / "test_unsaved_import_error.py", text)  # an unsaved buffer: never written
    status = await rec.until(
        lambda: next((s for s in rec.statuses if s["uri"] == uri and s["state"] != "running"), None)
    )
    assert status["state"] == "error", status
    assert "cannot run on the initial program nor the reference" in status["message"]
    assert "no_such_function" in status["message"] or "ImportError" in status["message"]


@pytest.mark.settings({"debounceMs": 0})
async def test_counts_shown_during_a_syntax_error_are_marked_stale(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    first = await rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"]), None))
    assert first["stale"] is False
    replace_all(client, uri, 2, OVERFIT.read_text() + "\ndef test_broken(:\n")
    status = await rec.until(
        lambda: next(
            (s for s in rec.statuses[rec.statuses.index(first) + 1 :] if s["uri"] == uri and s["state"] != "running"),
            None,
        )
    )
    assert status["metrics"] == first["metrics"] and status["stale"] is True
    assert "from the last run" in status["message"]

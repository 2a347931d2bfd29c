"""`prism/status` payloads that end a run: never left at "running"."""

from __future__ import annotations

from prism_lsp.server.status import dropped_status


def test_a_dropped_run_ends_idle_and_keeps_the_last_metrics(unit_check):
    status = dropped_status("file:///s.py", unit_check, "save")
    assert status["state"] == "idle" and status["metrics"] == unit_check.report.metrics.model_dump()
    assert status["message"] == "the buffer changed since the last save; save to run the panel on it"
    first = dropped_status("file:///s.py", None, "type")
    assert first["state"] == "idle" and first["metrics"] is None and "a new run follows" in first["message"]

"""A closed engine session starts no runner: a run still going at shutdown ends instead of
building new pools (a server that had received `exit` kept starting sandboxes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_lsp.engine.session import EngineSession, SessionClosed
from prism_lsp.tasks import load_task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_after_close_no_pool_is_made_and_the_reason_is_said(tmp_path):
    session = EngineSession(tmp_path / "cache")
    task = load_task(FIXTURES / "mean-rounded")
    session.close()
    with pytest.raises(SessionClosed, match="shutting down"):
        session.pool_for(task)

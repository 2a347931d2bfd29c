"""Docker sandbox tests: a real engine and the registry-free image `prism-python:local`.

Skipped (with the reason) only when no Docker engine is reachable, never in CI; the
marker handling and the `docker_image` fixture live in tests/conftest.py.
"""

from __future__ import annotations

import pytest

from prism_lsp.engine.session import EngineSession


@pytest.fixture(scope="session")
def docker_engine(cache_dir, docker_image) -> EngineSession:
    """One warm engine for the Docker tests (its pools keep one container per task settings)."""
    session = EngineSession(cache_dir, workers=2)
    yield session
    session.close()

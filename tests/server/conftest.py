"""pytest-lsp fixtures: a real `python -m prism_lsp` over stdio per test, with its own tree cache."""

from __future__ import annotations

import json

import pytest_lsp
from pytest_lsp import LanguageClient

from tests.server.harness import CACHE, FAST, INIT_OPTIONS, init_params, server_config


@pytest_lsp.fixture(config=server_config(CACHE))
async def client(lsp_client: LanguageClient, request):
    """A server initialised with fast settings (or `@pytest.mark.settings({...})`)."""
    marker = request.node.get_closest_marker("settings")
    options = marker.args[0] if marker else FAST
    spec = marker.kwargs.get("client", "visual-studio-code") if marker else "visual-studio-code"
    await lsp_client.initialize_session(init_params(options, spec))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=server_config(CACHE))
async def vscode_client(lsp_client: LanguageClient):
    """A server started with exactly the VS Code extension's shared initializationOptions fixture."""
    options = json.loads(INIT_OPTIONS.read_text())["initializationOptions"]
    await lsp_client.initialize_session(init_params(options))
    yield
    await lsp_client.shutdown_session()


def pytest_configure(config):
    config.addinivalue_line("markers", "settings(options, client=...): initializationOptions for the lsp client")

"""Runners start before the first run needs them: at `initialized` when the workspace folder is a
task, and when a file of a task opens (a real server over stdio, real bubblewrap runners)."""

from __future__ import annotations

import asyncio
import shutil

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.harness import CACHE, FAST, FIXTURES, expected, open_doc, server_config

READY = "runners ready for task"


async def _ready_message(client: LanguageClient, timeout: float = 90.0) -> str:
    async with asyncio.timeout(timeout):
        while True:
            found = next((m.message for m in client.log_messages if READY in m.message), None)
            if found is not None:
                return found
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)


@pytest_lsp.fixture(config=server_config(CACHE))
async def task_workspace(lsp_client: LanguageClient, tmp_path_factory):
    """A server whose workspace folder is a copy of the mean-rounded task."""
    root = tmp_path_factory.mktemp("ws") / "mean-rounded"
    shutil.copytree(FIXTURES / "mean-rounded", root)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            initialization_options=FAST,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="mean-rounded")],
        )
    )
    lsp_client.task_root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_a_task_workspace_starts_its_runners_before_any_file_opens(task_workspace: LanguageClient):
    client = task_workspace
    message = await _ready_message(client)
    assert "`mean-rounded`" in message
    assert not client.diagnostics  # nothing was opened: the runners came up on their own
    root = client.task_root  # type: ignore[attr-defined]
    uri = open_doc(client, root / "suites" / "test_overfit.py")
    diagnostics = await client.recorder.final_diagnostics(uri, 1)  # type: ignore[attr-defined]
    lines = expected("mean-rounded")["suites"]["test_overfit.py"]["rejects_valid_lines"]
    assert {d.range.start.line + 1 for d in diagnostics if d.code == "rejects-valid"} == set(lines)
    assert sum(READY in m.message for m in client.log_messages) == 1  # once per task, not per file


async def test_opening_a_tasks_file_starts_its_runners(client: LanguageClient):
    open_doc(client, FIXTURES / "slugify" / "suites" / "test_weak.py")
    assert "`slugify`" in await _ready_message(client)

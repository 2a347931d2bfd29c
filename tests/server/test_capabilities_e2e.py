"""End to end: a client without Markdown hovers and without code action literals."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from tests.server.harness import CACHE, FAST, FIXTURES, ROOT, of_kind, open_doc, record_applied_edits, server_config

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


@pytest_lsp.fixture(config=server_config(CACHE))
async def plain_client(lsp_client: LanguageClient):
    caps = client_capabilities("visual-studio-code")
    caps.text_document.hover.content_format = [types.MarkupKind.PlainText]
    caps.text_document.code_action.code_action_literal_support = None
    caps.text_document.publish_diagnostics.code_description_support = False
    record_applied_edits(lsp_client)

    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=caps, initialization_options=FAST, root_uri=ROOT.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


async def test_hover_is_plain_text_and_actions_are_commands(plain_client):
    client = plain_client
    uri = open_doc(client, OVERFIT)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    assert diags and all(d.code_description is None for d in diags)  # links only for clients that show them
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(13, 10))
    )
    assert hover.contents.kind == types.MarkupKind.PlainText
    text = hover.contents.value
    assert "|" not in text and "**" not in text and "`" not in text
    assert any(line.split()[:4] == ["half-even", "valid", "fail", "✗"] for line in text.splitlines())

    (rv,) = of_kind(diags, "rejects-valid")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rv.range, types.CodeActionContext(diagnostics=[rv]))
    )
    assert actions and all(isinstance(a, types.Command) for a in actions)
    ignore = next(a for a in actions if a.title == "Ignore `rejects-valid` on this line")
    await client.workspace_execute_command_async(types.ExecuteCommandParams(ignore.command, ignore.arguments))
    (applied,) = client.applied_edits
    (edit,) = applied.edit.changes[uri]
    assert edit.range.start.line == 13 and edit.new_text.endswith("# prism: ignore[rejects-valid]")

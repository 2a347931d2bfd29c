"""End to end (pytest-lsp, real server and sandbox): verified suggestions are code actions on the
diagnostics they answer, titled with what they were verified to do; applied through
`workspace/applyEdit`, the next run clears the finding. At reveal `counts` none appears."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from prism_lsp.server.actions import APPLY_EDIT
from prism_lsp.suggest.edits import Edit, apply_edits
from tests.server.harness import (
    CACHE,
    FAST,
    FIXTURES,
    ROOT,
    of_kind,
    open_doc,
    record_applied_edits,
    replace_all,
    server_config,
)

WEAK = FIXTURES / "mean-rounded" / "suites" / "test_weak.py"
OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
INVALID = ["trunc-negative", "consumes-input", "forgets-last", "median", "ceiling"]


def _client_fixture(options: dict):
    @pytest_lsp.fixture(config=server_config(CACHE))
    async def fixture(lsp_client: LanguageClient):
        record_applied_edits(lsp_client)

        await lsp_client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                initialization_options=options,
                root_uri=ROOT.as_uri(),
            )
        )
        yield
        await lsp_client.shutdown_session()

    return fixture


full_client = _client_fixture(FAST)
counts_client = _client_fixture({**FAST, "reveal": "counts"})


async def _actions(client, uri, diags):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), diags[0].range, types.CodeActionContext(diagnostics=diags)
        )
    )


@pytest.mark.slow
async def test_suggestions_apply_through_apply_edit_and_clear_the_finding(full_client):
    client = full_client
    text = WEAK.read_text()
    uri = open_doc(client, WEAK)
    diags = await client.recorder.final_diagnostics(uri, 1, "accepts-invalid")
    found = of_kind(diags, "accepts-invalid")
    assert found
    actions = await _actions(client, uri, found)
    fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.title.startswith("Add ")]
    assert fixes and all("still accepts valid 4/4 besides the reference" in a.title for a in fixes)
    assert any("`assert mean_rounded(" in a.title and "(rejects `" in a.title for a in fixes)
    edits = []
    for action in fixes:
        assert action.diagnostics and action.diagnostics[0].code == "accepts-invalid"
        from lsprotocol.converters import get_converter

        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(APPLY_EDIT, [get_converter().unstructure(action.edit)])
        )
    assert len(client.applied_edits) == len(fixes)
    for applied in client.applied_edits:
        for e in applied.edit.changes[uri]:
            edits.append(
                Edit(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text)
            )
    replace_all(client, uri, 2, apply_edits(text, edits))
    after = await client.recorder.final_diagnostics(uri, 2)
    assert not of_kind(after, "accepts-invalid") and not of_kind(after, "rejects-valid")


@pytest.mark.slow
async def test_counts_offers_no_suggestion_and_shows_no_value(counts_client):
    client = counts_client
    uri = open_doc(client, WEAK)
    diags = await client.recorder.final_diagnostics(uri, 1, "accepts-invalid")
    assert of_kind(diags, "accepts-invalid") == []  # whole-suite numbers only: no finding on a line (issue 21)
    line = next(i for i, text in enumerate(WEAK.read_text().splitlines()) if text.lstrip().startswith("assert"))
    where = types.Range(types.Position(line, 0), types.Position(line, 10))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), where, types.CodeActionContext(diagnostics=diags))
    )
    assert not any(a.title.startswith(("Add ", "Relax ")) for a in actions or [])
    shown = " ".join(a.title for a in actions or []) + " ".join(d.message for d in diags)
    assert not any(c in shown for c in INVALID) and "mean_rounded([" not in shown
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 4))
    )
    assert hover is None or (
        "mean_rounded([-" not in hover.contents.value and not any(c in hover.contents.value for c in INVALID)
    )
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    lens_text = " ".join(str(lens.command.title) for lens in lenses or [] if lens.command)
    statuses = " ".join(str(s) for s in client.recorder.statuses)
    for text in (lens_text, statuses):
        assert not any(c in text for c in INVALID) and "mean_rounded([" not in text
    uri = open_doc(client, OVERFIT)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    assert of_kind(diags, "rejects-valid") == []
    line = 13  # the over-specified assert of test_overfit.py (0-based)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 8))
    )
    assert hover is None or "disagree" not in hover.contents.value
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line, 0), types.Position(line, 10)),
            types.CodeActionContext(diagnostics=diags),
        )
    )
    assert not any(a.title.startswith(("Add ", "Relax ")) for a in actions or [])


@pytest.mark.slow
async def test_relaxation_action_and_open_dimension_hover(full_client):
    client = full_client
    uri = open_doc(client, OVERFIT)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    (rv,) = of_kind(diags, "rejects-valid")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(rv.range.start.line, 8))
    )
    text = hover.contents.value
    assert "valid candidates disagree on `mean_rounded([1, 4])`: " in text and "the statement leaves this open" in text
    assert {"2", "3"} <= set(text.split("`mean_rounded([1, 4])`: ")[1].split(" —")[0].replace(" or ", ", ").split(", "))
    actions = await _actions(client, uri, [rv])
    relax = [a for a in actions if a.title.startswith("Relax to `assert mean_rounded([1, 4]) in {2, 3}`")]
    assert relax and "still rejects invalid " in relax[0].title
    # Issue 23 item 8: the initial program returns 2 there, so after the edit test_halfway passes on
    # it (its lens reads `initial: missed`); test_rounds_to_nearest still catches it.
    assert relax[0].title.endswith("; this test no longer fails on the initial program)")

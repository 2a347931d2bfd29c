"""End to end: a panel too small to judge a suite (only the reference) never reads as a pass.

`fixtures/top-tags` ships only its reference: a suite there passes "everything" because there
is nothing to fail. The status says what cannot be judged, the file's lens shows no ✓ for JSF,
and a client with the Build Panel command is offered it.
"""

from __future__ import annotations

import attrs
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.harness import CACHE, FAST, FIXTURES, init_params, open_doc, server_config

WEAK = FIXTURES / "top-tags" / "suites" / "test_weak.py"
MEAN = FIXTURES / "mean-rounded" / "suites" / "test_weak.py"


@pytest_lsp.fixture(config=server_config(CACHE))
async def panel_client(lsp_client: LanguageClient):
    params = init_params(FAST)
    await lsp_client.initialize_session(
        attrs.evolve(params, capabilities=attrs.evolve(params.capabilities, experimental={"prismPanelCommands": True}))
    )
    yield
    await lsp_client.shutdown_session()


def _finished(rec, uri):
    return rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"] is not None), None))


async def _lenses(client, uri):
    return await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))


async def test_a_reference_only_panel_says_what_it_cannot_judge_and_offers_build_panel(panel_client):
    client, rec = panel_client, panel_client.recorder
    uri = open_doc(client, WEAK)
    status = await _finished(rec, uri)
    assert status["metrics"]["jsf"] is True, "the report's own verdict: nothing failed"
    assert status["valid"] == {"accepted": 0, "total": 0} and status["invalid"] == {"rejected": 0, "total": 0}
    assert status["unjudged"] == [
        "over-specification (no valid candidate besides the reference)",
        "under-assertion (no invalid candidate)",
    ]
    lenses = await _lenses(client, uri)
    top = [lens.command for lens in lenses if lens.range.start.line == 0]
    assert top[0].title == (
        "Prism: JSF ? · RAR ✓ · valid 0/0 besides the reference · invalid 0/0 · cannot judge over-specification "
        "(no valid candidate besides the reference) or under-assertion (no invalid candidate)"
    )
    assert "✓ · RAR" not in top[0].title
    assert [(c.title, c.command, c.arguments) for c in top[1:]] == [("Build Panel", "prism.buildPanel", (uri,))]


async def test_a_full_panel_judges_everything_and_offers_no_build(panel_client):
    client, rec = panel_client, panel_client.recorder
    uri = open_doc(client, MEAN)
    status = await _finished(rec, uri)
    assert status["unjudged"] == []
    titles = [lens.command.title for lens in await _lenses(client, uri) if lens.range.start.line == 0]
    assert len(titles) == 1 and "cannot judge" not in titles[0] and "JSF ?" not in titles[0]

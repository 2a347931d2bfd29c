"""The real server with a suite that forges text (tests/surface/forger.py): below `full`, no
candidate's secret in diagnostics, hovers, lenses or statuses; at every level, no control
sequence."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from tests.server.harness import FAST, open_doc
from tests.surface.forger import SECRETS, SUITE, SUITE_TEXT, controls, forger_task, leaks

ASSERT_LINES = [i for i, line in enumerate(SUITE_TEXT.splitlines()) if line.lstrip().startswith(("assert", "raise"))]


def _level(reveal: str):
    return pytest.param(reveal, marks=pytest.mark.settings({**FAST, "reveal": reveal}), id=reveal)


@pytest.mark.parametrize("reveal", [_level("full"), _level("labels"), _level("counts")])
async def test_what_the_editor_shows(client, tmp_path, reveal):
    task = forger_task(tmp_path / "task")
    rec = client.recorder
    uri = open_doc(client, task / SUITE)
    diags = await rec.final_diagnostics(uri, 1)
    shown = [json.dumps(default_converter().unstructure(diags))]
    for line in ASSERT_LINES:
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 8))
        )
        shown.append(hover.contents.value if hover is not None else "")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    shown += [lens.command.title for lens in lenses if lens.command]
    shown += [json.dumps(s) for s in rec.statuses if s["uri"] == uri]
    text = "\n".join(shown)
    assert any(d.code == "execution-error" for d in diags)
    # At counts no finding comes from a candidate's run (the baseline's execution error stays).
    assert any(d.code == "rejects-valid" for d in diags) == (reveal != "counts")
    assert controls(text) == []
    if reveal == "full":
        assert sorted(leaks(text)) == sorted(SECRETS.values()), "the suite does carry the secrets out"
    else:
        assert leaks(text) == []
        assert not any(f"`{cid}`" in text for cid in SECRETS)

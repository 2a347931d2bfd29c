"""End to end: diagnostics while typing stay until the next run replaces them, and their text is plain.

An edit inside a test used to publish the static diagnostics first, without that test's
findings, then the run's with them: the squiggle vanished and came back on every keystroke.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.harness import FIXTURES, edit_line, of_kind, open_doc

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


@pytest.mark.settings({"debounceMs": 0})
async def test_an_edit_in_a_test_never_publishes_its_findings_away_before_the_run(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1)
    assert of_kind(diags, "rejects-valid")
    # Line 13 (0-based) is `assert mean_rounded([1, 4]) == 3`: the same finding with its inputs swapped.
    edit_line(client, uri, 2, 13, "    assert mean_rounded([1, 4]) == 3", "    assert mean_rounded([4, 1]) == 3")
    final = await rec.final_diagnostics(uri, 2)
    assert of_kind(final, "rejects-valid")
    v2 = [p for p in rec.publications if p.uri == uri and p.version == 2]
    assert all(of_kind(list(p.diagnostics), "rejects-valid") for p in v2), [[d.code for d in p.diagnostics] for p in v2]


@pytest.mark.settings({"debounceMs": 0})
async def test_diagnostic_text_has_no_markdown_backticks(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1)
    texts = [d.message for d in diags] + [r.message for d in diags for r in d.related_information or []]
    assert texts and not [t for t in texts if "`" in t]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(13, 10))
    )
    assert hover.contents.kind == types.MarkupKind.Markdown  # hovers stay markdown

"""End to end: a test's lens says how many of the reference's changed lines it reaches.

Real `python -m prism_lsp` over stdio on `fixtures/cart-total` (six executable changed lines in
its reference, `tests/engine/test_change_coverage.py`): at `full` and `labels` each test's lens
carries "reaches N of 6 changed lines"; at `counts` no test's lens has a number of the panel.
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.engine.coverage_suites import CART_SUITE
from tests.server.harness import FAST, FIXTURES, open_doc

SUITE = FIXTURES / "cart-total" / "suites" / "test_reach.py"  # never written: the buffer is the suite


async def _test_lenses(client) -> dict[int, str]:
    rec = client.recorder
    uri = open_doc(client, SUITE, CART_SUITE)
    await rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"] is not None), None))
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    return {lens.range.start.line: lens.command.title for lens in lenses if lens.range.start.line > 0}


def _at(level: str):
    return pytest.param(level, marks=pytest.mark.settings({**FAST, "reveal": level}), id=level)


@pytest.mark.parametrize("reveal", [_at("full"), _at("labels")])
async def test_each_test_lens_says_how_many_changed_lines_it_reaches(client, reveal):
    titles = await _test_lenses(client)
    # `def test_empty` on line 4, `def test_one` on line 8 (0-based 3 and 7)
    assert titles[3].endswith(" · reaches 3 of 6 changed lines"), titles
    assert titles[7].endswith(" · reaches 5 of 6 changed lines"), titles


@pytest.mark.settings({**FAST, "reveal": "counts"})
async def test_at_counts_no_test_lens_counts_changed_lines(client):
    titles = await _test_lenses(client)
    assert sorted(titles) == [3, 7]
    assert not any("reaches" in title for title in titles.values()), titles

"""Analysis positions (1-based lines, character columns) -> LSP positions in each encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types

from prism_lsp.analysis.span import Span
from prism_lsp.server.positions import Lines

TEXT = 'x = "é€𝄞"; assert f() == 3\n\n   \nlast'
# prefix before `assert`: `x = "` (5) + é € 𝄞 (3 characters) + `"; ` (3) = 11 characters


@pytest.mark.parametrize("encoding,col", [("utf-16", 12), ("utf-8", 17), ("utf-32", 11)])
def test_column_counts_the_encodings_units(encoding, col):
    lines = Lines(TEXT, encoding)
    assert lines.column(1, 11) == col
    assert lines.char_index(1, col) == 11


def test_char_index_inside_a_surrogate_pair_rounds_up_and_clamps_past_the_end():
    lines = Lines(TEXT, "utf-16")
    assert lines.column(1, 7) == 7 and lines.column(1, 8) == 9  # 𝄞 is two UTF-16 units
    assert lines.char_index(1, 8) == 8
    assert lines.char_index(1, 999) == len(TEXT.splitlines()[0])


def test_span_range_is_zero_based_and_multi_line():
    lines = Lines(TEXT, "utf-16")
    assert lines.span_range(Span(1, 11, 4, 2)) == types.Range(types.Position(0, 12), types.Position(3, 2))


def test_line_range_covers_the_non_blank_part():
    lines = Lines("    assert x  \n\n   \n")
    assert lines.line_range(1) == types.Range(types.Position(0, 4), types.Position(0, 12))
    assert lines.line_range(2) == types.Range(types.Position(1, 0), types.Position(1, 0))
    assert lines.line_range(3) == types.Range(types.Position(2, 0), types.Position(2, 3))  # blank: the whole line


def test_lines_past_the_end_are_empty():
    lines = Lines("")
    assert lines.text(1) == "" and lines.text(0) == "" and lines.text(5) == ""
    assert lines.line_range(9) == types.Range(types.Position(8, 0), types.Position(8, 0))


def test_only_lsp_line_ends_split_lines():
    # A form feed, \x1c and \u2028 are Python whitespace / text, not line ends, for LSP.
    text = "# section\x0c\nx = 1\u2028y\r\nassert f() == 3\rlast"
    lines = Lines(text, "utf-16")
    assert [lines.text(n) for n in (1, 2, 3, 4)] == ["# section\x0c", "x = 1\u2028y", "assert f() == 3", "last"]
    assert lines.line_range(3) == types.Range(types.Position(2, 0), types.Position(2, 15))

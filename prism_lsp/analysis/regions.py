"""Choose what to parse: what an edit touched (`analysis.reuse`), the whole buffer, or (when it
is broken) its top-level regions.

tree-sitter's error recovery can swallow the definitions that follow a broken line into
one ERROR node (an unclosed ``(`` eats every later ``def test_*``). While the author types,
a broken line is the normal state, so when the whole-file parse has errors we re-parse each
top-level ``def``/``class`` region on its own: a mistake then only hides its own region.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from prism_lsp.analysis.reuse import remember, reparse
from prism_lsp.analysis.source import Chunk, Source

# A top-level definition starts at column 0 with one of these keywords.
_DEF_START = re.compile(r"(?:async\s+def|def|class)\b")


def parse_chunks(source: Source) -> tuple[list[Chunk], bool]:
    """Parsed pieces that together cover the buffer, in order, each starting at a line start.

    A buffer tree-sitter parses cleanly gives clean chunks: the whole file, or the pieces of
    :mod:`prism_lsp.analysis.reuse` when a recent version of it was parsed (runs of whole top-level
    statements, each parsed on its own as it parses in the buffer). The flag says so: True exactly
    when the buffer as a whole parses without error. Callers may rely on the chunks not overlapping
    and on rows/bytes being mappable back through :class:`~prism_lsp.analysis.source.Source`.
    """
    reused = reparse(source)
    if reused is not None:
        return reused, True
    whole = source.whole()
    if not whole.root.has_error:
        remember(source, [whole])
        return [whole], True
    starts = _region_starts(source, _rows_inside_strings(whole.root))
    if len(starts) <= 1:
        return [whole], False
    bounds = starts + [len(source.lines)]
    return [source.chunk_of_rows(a, b) for a, b in zip(bounds, bounds[1:]) if a < b], False


def _region_starts(source: Source, string_rows: set[int]) -> list[int]:
    """0-based rows where a new top-level region begins (always includes row 0)."""
    starts = [0]
    # The last column-0 line that opened a statement, so a decorator stays with its def.
    previous_head = ""
    for row, line in enumerate(source.lines):
        if not line or line[0] in " \t#\r" or row in string_rows:
            continue
        if line[0] in ")]}":
            # Closing bracket of a multi-line decorator/call: not a statement start.
            continue
        is_decorator = line.startswith("@")
        is_def = bool(_DEF_START.match(line))
        after_decorator = previous_head.startswith("@")
        if (is_decorator or is_def) and not after_decorator and row > 0:
            starts.append(row)
        previous_head = line
    return starts


def _rows_inside_strings(root: Node) -> set[int]:
    """Rows that lie inside a multi-line string (after its first row), so not code."""
    rows: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "string":
            first, last = node.start_point.row, node.end_point.row
            rows.update(range(first + 1, last + 1))
            continue
        if node.end_point.row > node.start_point.row:
            # Only multi-row subtrees can contain a multi-line string.
            stack.extend(node.children)
    return rows

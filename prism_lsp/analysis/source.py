"""The editor buffer as tree-sitter sees it, and conversion of its positions to :class:`Span`.

tree-sitter reports byte columns into the UTF-8 encoding; everything Prism hands out uses
character columns, so all node positions go through :class:`Source`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache

import tree_sitter_python as tsp
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from prism_lsp.analysis.span import Span


@lru_cache(maxsize=1)
def python_language() -> Language:
    """The tree-sitter Python grammar (loaded once)."""
    return Language(tsp.language())


# The node types the analysis looks for anywhere in a piece (see `Chunk.marked`).
MARKED_TYPES = ("comment", "assert_statement", "ERROR")


@lru_cache(maxsize=1)
def _marked_query() -> Query:
    return Query(python_language(), " ".join(f"({kind}) @{kind}" for kind in MARKED_TYPES))


def parse_bytes(data: bytes) -> Tree:
    """Parse ``data`` as Python; never raises on broken code (errors become ERROR nodes)."""
    # A Parser is cheap and not thread-safe, so each call gets its own.
    return Parser(python_language()).parse(data)


@dataclass(frozen=True)
class Chunk:
    """A parsed piece of the buffer: the whole file, or one top-level region of it.

    ``first_row`` and ``byte_offset`` say where the piece starts in the whole buffer, so
    node positions (relative to the piece) can be mapped back. Pieces always start at
    the beginning of a line, which keeps columns valid unchanged.
    """

    root: Node
    first_row: int
    byte_offset: int

    @cached_property
    def marked(self) -> dict[str, list[Node]]:
        """Every node of this piece of each of `MARKED_TYPES`, by type, each list in source order
        (an enclosing node before the nodes it holds). One tree-sitter query, run in C: walking a
        6,000-line module's nodes in Python for them took 0.3 s of every keystroke's analysis."""
        found = QueryCursor(_marked_query()).captures(self.root)
        return {kind: sorted(found.get(kind, ()), key=lambda n: (n.start_byte, -n.end_byte)) for kind in MARKED_TYPES}


def top_level(chunks: list[Chunk]) -> Iterator[tuple[Node, Chunk]]:
    """Every top-level node of the buffer (statements and comments) in order, with its chunk."""
    for chunk in chunks:
        for node in chunk.root.children:
            yield node, chunk


class Source:
    """The buffer text with its UTF-8 encoding, for slicing and position conversion."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", errors="surrogatepass")
        # tree-sitter counts rows by "\n" only; split the same way so rows agree.
        self.lines = text.split("\n")
        # An ASCII buffer (the common case) counts bytes as characters: no line is encoded.
        self._ascii = text.isascii()
        lengths = [len(line) for line in self.lines] if self._ascii else [len(raw) for raw in self._line_bytes]
        self.line_starts = [0, *itertools.accumulate(length + 1 for length in lengths)]

    @cached_property
    def _line_bytes(self) -> list[bytes]:
        return [line.encode("utf-8", errors="surrogatepass") for line in self.lines]

    def char_col(self, row: int, byte_col: int) -> int:
        """Character column for a 0-based ``row`` and a byte column within it."""
        if row >= len(self.lines):
            return 0
        if self._ascii:
            return byte_col
        raw = self._line_bytes[row]
        if byte_col >= len(raw):
            return len(self.lines[row]) + (byte_col - len(raw))
        return len(raw[:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: Node, chunk: Chunk) -> Span:
        """The :class:`Span` of ``node`` (a node of ``chunk``) in whole-buffer coordinates."""
        return self.span_of_points(
            node.start_point.row + chunk.first_row,
            node.start_point.column,
            node.end_point.row + chunk.first_row,
            node.end_point.column,
        )

    def span_of_points(self, srow: int, scol: int, erow: int, ecol: int) -> Span:
        """A :class:`Span` from 0-based rows and byte columns of the whole buffer."""
        return Span(srow + 1, self.char_col(srow, scol), erow + 1, self.char_col(erow, ecol))

    def node_text(self, node: Node, chunk: Chunk) -> str:
        """The exact source text of ``node`` (decoded from the buffer)."""
        start = node.start_byte + chunk.byte_offset
        end = node.end_byte + chunk.byte_offset
        return self.data[start:end].decode("utf-8", errors="replace")

    def byte_range(self, node: Node, chunk: Chunk) -> tuple[int, int]:
        """``(start, end)`` byte offsets of ``node`` in the whole buffer."""
        return node.start_byte + chunk.byte_offset, node.end_byte + chunk.byte_offset

    def whole(self) -> Chunk:
        """Parse the whole buffer as one chunk."""
        return Chunk(parse_bytes(self.data).root_node, 0, 0)

    def chunk_of_rows(self, first_row: int, end_row: int) -> Chunk:
        """Parse rows ``first_row .. end_row-1`` on their own."""
        start = self.line_starts[first_row]
        end = min(self.line_starts[end_row], len(self.data)) if end_row < len(self.line_starts) else len(self.data)
        return Chunk(parse_bytes(self.data[start:end]).root_node, first_row, start)

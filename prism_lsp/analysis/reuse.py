"""Parse a new version of a buffer as an edit of a recent one: only the statements it touched.

While the author types, each version differs from the last in one stretch. A whole parse of a
7,000-line module takes about 90 ms of every keystroke's check, and tree-sitter's own incremental
parse reuses little of a Python tree (its indentation scanner's state stops it: 60-100 ms for a
changed comment near the top of more-itertools' `tests/test_more.py`). So a buffer whose parse
was clean is kept as pieces, each a run of whole top-level statements parsed on its own; the
next version reuses every piece the edit left alone (moved, when the edit shifted it) and parses
the touched statements alone.

A piece parses on its own exactly as inside the buffer when it starts a line with a statement at
column 0 (nothing before it is left open: the pieces before it parsed cleanly and end a line)
and parses without error; every boundary is checked for that, and anything else (an error, an
indented or commented first line, a stretch that does not end a line) returns None, and the
caller parses the whole buffer. `tests/analysis/test_reuse.py` compares the result with a
whole parse on real modules under random edits.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass

from prism_lsp.analysis.source import Chunk, Source, parse_bytes

MAX_PIECES = 48  # past this many pieces, a whole parse starts over (each piece costs a little)
_KEEP_RECENT = 4  # a few open documents' last clean versions
# A piece may not start with these: an indented line would join the statement before it, and a
# comment line before an indented one too (CPython reads indentation after it).
_NOT_A_START = b" \t\f#\r\n"


@dataclass(frozen=True)
class _Layout:
    """A clean buffer's pieces, in order, covering it (each at its byte offset and row)."""

    data: bytes
    pieces: tuple[Chunk, ...]


_recent: list[_Layout] = []
_lock = threading.Lock()


def remember(source: Source, chunks: list[Chunk]) -> None:
    """Keep a buffer's clean parse (one chunk or several, none with an error) for the next version."""
    if any(chunk.root.has_error for chunk in chunks):
        return
    layout = _Layout(source.data, tuple(chunks))
    with _lock:
        _recent[:] = [kept for kept in _recent if kept.data != source.data][-(_KEEP_RECENT - 1) :] + [layout]


def reparse(source: Source) -> list[Chunk] | None:
    """Clean pieces covering ``source``, each parsed as it parses inside the whole buffer, reusing a
    recent version's pieces; None when no recent version is close, or the edit's stretch does not
    parse cleanly on its own (the caller then parses the whole buffer)."""
    data = source.data
    with _lock:
        recent = list(_recent)
    best: tuple[int, int, _Layout] | None = None
    for layout in recent:
        head = _common_prefix(layout.data, data)
        tail = _common_suffix(layout.data, data, min(len(layout.data), len(data)) - head)
        if best is None or head + tail > best[0] + best[1]:
            best = (head, tail, layout)
    if best is None or best[0] + best[1] < len(data) // 2:
        return None
    head, tail, layout = best
    if layout.data == data:
        return list(layout.pieces)
    chunks = _edited(source, layout, head, len(layout.data) - tail)
    if chunks is not None:
        remember(source, chunks)
    return chunks


def _edited(source: Source, layout: _Layout, head: int, old_end: int) -> list[Chunk] | None:
    """The pieces of ``source``: the old ones clear of the changed bytes ``head .. old_end`` (old
    coordinates; those after it moved), the statements around the change parsed again."""
    data, old = source.data, layout.data
    shift = len(data) - len(old)
    starts = [piece.byte_offset for piece in layout.pieces]
    ends = starts[1:] + [len(old)]
    # A piece ending where the edit starts is touched too: the edit may indent a line onto its end.
    # One starting where the edit ends is touched as well: the edit may join its first line.
    before = [piece for piece, end in zip(layout.pieces, ends) if end < head]
    after = [piece for piece, start in zip(layout.pieces, starts) if start > old_end]
    touched = layout.pieces[len(before) : len(layout.pieces) - len(after)]
    lo = touched[0].byte_offset
    hi = after[0].byte_offset if after else len(old)
    # Within the touched pieces only the top-level statements the edit reaches are parsed again.
    cuts = [lo, *_statement_starts(touched, old)]
    low = max(cut for cut in cuts if cut <= head)
    high = min((cut for cut in cuts if cut > old_end), default=hi)
    fresh: list[Chunk] = []
    for start, end in ((lo, low), (low, high + shift), (high + shift, hi + shift)):
        if start >= end:
            continue
        if not _is_boundary(data, start) or not _ends_a_line(data, end):
            return None
        piece = _piece(source, start, end)
        if piece.root.has_error:
            return None
        fresh.append(piece)
    moved = [_moved(source, piece, piece.byte_offset + shift) for piece in after]
    if moved and not _is_boundary(data, moved[0].byte_offset):
        return None
    chunks = before + fresh + moved
    return chunks if len(chunks) <= MAX_PIECES else None


def _ends_a_line(data: bytes, end: int) -> bool:
    """True when a piece may end at ``end``: the buffer's end, or a line's end not continued by a
    backslash (the next piece's first line would continue it)."""
    if end >= len(data):
        return True
    line = data[data.rfind(b"\n", 0, end - 1) + 1 : end]
    return line.endswith(b"\n") and not line.rstrip(b"\r\n").endswith(b"\\")


def _statement_starts(pieces: tuple[Chunk, ...], old: bytes) -> list[int]:
    """Byte offsets (old buffer) where a top-level statement of ``pieces`` starts a line at column 0."""
    found = []
    for piece in pieces:
        for node in piece.root.children:
            offset = node.start_byte + piece.byte_offset
            if node.type != "comment" and node.start_point.column == 0 and _is_boundary(old, offset):
                found.append(offset)
    return found


def _is_boundary(data: bytes, offset: int) -> bool:
    """True when a piece may start at ``offset``: the start of a line that starts with code."""
    if offset == 0:
        return True
    return data[offset - 1 : offset] == b"\n" and offset < len(data) and data[offset] not in _NOT_A_START


def _piece(source: Source, start: int, end: int) -> Chunk:
    return Chunk(parse_bytes(source.data[start:end]).root_node, _row_of(source, start), start)


def _moved(source: Source, piece: Chunk, offset: int) -> Chunk:
    """``piece`` (same bytes) at ``offset`` of the new buffer, keeping its nodes and what it marked."""
    moved = Chunk(piece.root, _row_of(source, offset), offset)
    if "marked" in piece.__dict__:  # `Chunk.marked` is cached per piece and holds no positions of its own
        moved.__dict__["marked"] = piece.__dict__["marked"]
    return moved


def _row_of(source: Source, offset: int) -> int:
    return bisect.bisect_left(source.line_starts, offset)


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many leading bytes ``a`` and ``b`` share (by halving: each step is one C comparison)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """How many trailing bytes ``a`` and ``b`` share, at most ``limit``."""
    lo, hi = 0, max(limit, 0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo

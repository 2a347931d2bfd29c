"""How much of a document Prism analyses: bounded size and nesting, so work stays bounded.

A suite is an untrusted document: an editor may hand the server 17 MB with 200,000 tests,
or an expression nested 20,000 deep. Past these limits nothing is parsed further, no
static rule walks it and no panel runs; the author gets one clear "not run: ..." instead
of minutes of work, gigabytes held, or a RecursionError from a tree walk.

The nesting limit is counted in tree-sitter levels, which Python's own limits keep far
below for real code (CPython refuses 200 nested brackets); the analysis walkers recurse
at most a few frames per level, so 500 levels stay well inside the interpreter's stack.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from tree_sitter import Node

from prism_lsp.analysis.source import Chunk

MAX_DOCUMENT_BYTES = 1_000_000
MAX_NESTING = 500


def size_problem(text: str) -> str | None:
    """Why `text` is too large to analyse, or None."""
    # len() first: a str of N characters is at least N bytes, at most 4N.
    if len(text) <= MAX_DOCUMENT_BYTES // 4:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_DOCUMENT_BYTES:
        return None
    return f"the document is too large ({_mb(size)} > {_mb(MAX_DOCUMENT_BYTES)} MB)"


def nesting_problem(chunks: list[Chunk]) -> str | None:
    """Why the parsed buffer nests too deeply to analyse (naming the line), or None."""
    for chunk in chunks:
        row = _too_deep(chunk.root) if chunk.root.has_error else _statements_too_deep(chunk.root)
        if row is not None:
            return f"the document nests code more than {MAX_NESTING} levels deep (line {chunk.first_row + row + 1})"
    return None


# A top-level statement's text -> the row (relative to it) of its first node past the limit, or -1.
_DEPTHS: OrderedDict[bytes, int] = OrderedDict()
_DEPTHS_LOCK = threading.Lock()
_MAX_DEPTHS = 8_192


def _statements_too_deep(root: Node) -> int | None:
    """`_too_deep` of a tree without errors, statement by statement, each remembered by its text
    (a statement parses the same wherever it stands): an edit walks the statement it changed,
    not the 340,000 nodes of a 7,000-line module (0.1 s of every keystroke's analysis)."""
    for node in root.children:
        key = hashlib.blake2b(node.text or b"", digest_size=16).digest()
        with _DEPTHS_LOCK:
            row = _DEPTHS.get(key)
        if row is None:
            found = _too_deep(node, MAX_NESTING - 1)  # the statement is one level below the module
            row = -1 if found is None else found - node.start_point[0]
            with _DEPTHS_LOCK:
                _DEPTHS[key] = row
                while len(_DEPTHS) > _MAX_DEPTHS:
                    _DEPTHS.popitem(last=False)
        if row >= 0:
            return node.start_point[0] + row
    return None


def _too_deep(root: Node, limit: int = MAX_NESTING) -> int | None:
    """The 0-based row of the first node more than `limit` levels below `root`, or None.

    Iterative (a tree cursor), so the check itself cannot exhaust the stack."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return cursor.node.start_point[0] if cursor.node else 0
            continue
        while not cursor.goto_next_sibling():  # no child: the next sibling, climbing as needed
            if not cursor.goto_parent():
                return None
            depth -= 1


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f}"

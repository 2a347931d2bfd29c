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
        row = _too_deep(chunk.root)
        if row is not None:
            return f"the document nests code more than {MAX_NESTING} levels deep (line {chunk.first_row + row + 1})"
    return None


def _too_deep(root: Node) -> int | None:
    """The 0-based row of the first node deeper than the limit, or None.

    Iterative (a tree cursor), so the check itself cannot exhaust the stack."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > MAX_NESTING:
                return cursor.node.start_point[0] if cursor.node else 0
            continue
        while not cursor.goto_next_sibling():  # no child: the next sibling, climbing as needed
            if not cursor.goto_parent():
                return None
            depth -= 1


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f}"

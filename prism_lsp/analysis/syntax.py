"""Syntax problems of the buffer, located and worded for the author.

tree-sitter finds errors anywhere (and keeps going), but it is lenient in places (an empty
function body parses); CPython's compiler is exact but stops at the first error. So: a
buffer that compiles has no syntax issues at all, and CPython's error is added when no
tree-sitter issue already covers its line.
"""

from __future__ import annotations
import __future__

import hashlib
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass

from tree_sitter import Node

from prism_lsp.analysis.source import Chunk, Source, top_level
from prism_lsp.analysis.span import Span

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_MAX_ISSUES = 20


@dataclass(frozen=True)
class SyntaxIssue:
    """One syntax error: where it is and a one-line message starting with ``syntax error``."""

    span: Span
    message: str


def find_syntax_issues(source: Source, chunks: list[Chunk], *, clean: bool) -> list[SyntaxIssue]:
    """Syntax issues of the buffer (``chunks`` of `regions.parse_chunks`, ``clean`` its flag), ordered
    by position; empty when the buffer compiles."""
    if clean and compiles_by_statement(source, chunks):
        return []
    compiler_issue = _compile_issue(source)
    if compiler_issue is None:
        return []
    issues: list[SyntaxIssue] = []
    for chunk in chunks:
        _collect(chunk.root, chunk, source, issues)
    if not any(i.span.contains_line(compiler_issue.span.start_line) for i in issues):
        issues.append(compiler_issue)
    return sorted(issues, key=lambda i: i.span)[:_MAX_ISSUES]


def _collect(node: Node, chunk: Chunk, source: Source, out: list[SyntaxIssue]) -> None:
    if not node.has_error:
        return
    if node.is_missing:
        out.append(SyntaxIssue(source.span(node, chunk), f"syntax error: missing {_quote(node.type)}"))
        return
    if node.is_error:
        message, anchor = _describe_error(node, chunk, source)
        out.append(SyntaxIssue(_first_line(source.span(anchor, chunk), source), message))
        # Nested ERROR nodes are the same mistake seen again; one message per region.
        return
    for child in node.children:
        _collect(child, chunk, source, out)


def _describe_error(node: Node, chunk: Chunk, source: Source) -> tuple[str, Node]:
    """Message and the node to point at: an unbalanced bracket when there is one,
    else the start of the ERROR region, quoted."""
    pending: list[Node] = []
    for leaf in _leaves(node):
        if leaf.type in _OPENERS:
            pending.append(leaf)
        elif leaf.type in _CLOSERS:
            if pending and pending[-1].type == _CLOSERS[leaf.type]:
                pending.pop()
            else:
                return f"syntax error: unmatched {_quote(leaf.type)}", leaf
    if pending:
        # The outermost unclosed bracket is where the author has to look.
        return f"syntax error: missing {_quote(_OPENERS[pending[0].type])}", pending[0]
    text = source.node_text(node, chunk).strip().splitlines()
    snippet = text[0].strip() if text else ""
    if len(snippet) > 30:
        snippet = snippet[:27] + "..."
    return (f"syntax error near {_quote(snippet)}" if snippet else "syntax error"), node


def _first_line(span: Span, source: Source) -> Span:
    """Clip a span to its first line: a diagnostic over a whole swallowed block is noise."""
    if span.end_line == span.start_line:
        return span
    line = source.lines[span.start_line - 1] if span.start_line <= len(source.lines) else ""
    return Span(span.start_line, span.start_col, span.start_line, max(len(line.rstrip()), span.start_col))


def _leaves(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.child_count == 0:
            out.append(current)
        else:
            stack.extend(reversed(current.children))
    return out


def _quote(text: str) -> str:
    return "'" + text + "'"


def _compile_issue(source: Source) -> SyntaxIssue | None:
    """CPython's verdict on the buffer: None when it compiles."""
    try:
        with warnings.catch_warnings():
            # SyntaxWarnings (`1if x`, invalid escapes) are not errors; keep them off stderr.
            warnings.simplefilter("ignore")
            compile(source.text, "<suite>", "exec", dont_inherit=True)
    except SyntaxError as err:
        line = err.lineno or 1
        line = min(max(line, 1), max(len(source.lines), 1))
        line_text = source.lines[line - 1] if source.lines else ""
        # CPython's offset is 1-based; it counts characters for str input.
        col = max((err.offset or 1) - 1, 0)
        col = min(col, len(line_text))
        end_col = len(line_text) if col >= len(line_text.rstrip()) else len(line_text.rstrip())
        return SyntaxIssue(Span(line, col, line, max(end_col, col)), f"syntax error: {err.msg}")
    except (ValueError, RecursionError, MemoryError) as err:  # e.g. NUL bytes, deep nesting
        return SyntaxIssue(Span(1, 0, 1, 0), f"syntax error: {err}")
    return None


# Per top-level statement: (its bytes' digest, the module's future flags) -> whether it compiles.
_COMPILED: OrderedDict[tuple[bytes, int], bool] = OrderedDict()
_COMPILED_LOCK = threading.Lock()
_MAX_COMPILED = 8_192  # statements remembered (a few modules' worth)
# Top-level statements whose meaning at module level depends on the others: compile the module.
_MODULE_WIDE = {"global_statement", "nonlocal_statement"}


def compiles_by_statement(source: Source, chunks: list[Chunk]) -> bool:
    """True when the buffer surely compiles, decided statement by statement (each remembered by its
    text), so a one-test edit of a 7,000-line module compiles that test, not the module (0.15 s).

    ``chunks`` are the clean parse's runs of whole statements (`regions.parse_chunks`). False means
    "compile the whole buffer to know": tree-sitter found an error, or a statement that
    does not start a line (nor follows a `;`); a `global` or
    `nonlocal` at module level, a `__future__` import after other statements or of a feature that
    changes parsing (their meaning crosses statements); a line continued onto a statement; or a
    statement that does not compile alone. Each statement is compiled with the module's
    `__future__` flags, as it is inside the module; a module-level statement's errors are its own
    otherwise (`return` and `break` outside their blocks, `await`, `import *`...)."""
    if any(chunk.root.has_error for chunk in chunks) or not chunks or chunks[0].first_row != 0:
        return False
    flags = 0
    leading = True
    pieces: list[bytes] = []
    end = 0  # where the last statement (or comment) ended
    last_row = -1
    for node, chunk in top_level(chunks):
        # Between statements only blanks and `;` (tree-sitter also takes a stray indented line
        # after a statement, which CPython refuses): each statement starts a line, or follows `;`.
        start, stop = source.byte_range(node, chunk)
        row = node.start_point.row + chunk.first_row
        gap = source.data[end:start]
        separated = b";" in gap and row == last_row
        if gap.strip(b" \t\n\r\f;") or (node.start_point.column != 0 and not separated):
            return False
        end, last_row = stop, node.end_point.row + chunk.first_row
        if node.type == "comment":
            continue
        if node.type in _MODULE_WIDE:
            return False
        if node.type == "future_import_statement":
            if not leading:
                return False
            feature_flags = _future_flags(source.node_text(node, chunk))
            if feature_flags is None:
                return False
            flags |= feature_flags
        elif not (leading and node.type == "expression_statement" and not pieces and _is_string(node)):
            leading = False
        if row > 0 and source.lines[row - 1].rstrip().endswith("\\"):
            return False
        pieces.append(source.data[start:stop])
    return all(_piece_compiles(piece, flags) for piece in pieces)


def _is_string(node: Node) -> bool:
    return node.named_child_count == 1 and node.named_children[0].type in ("string", "concatenated_string")


def _future_flags(statement: str) -> int | None:
    """The compiler flags of a `from __future__ import ...` statement; None for a feature that
    changes how text parses (`barry_as_FLUFL`) or one CPython does not know (its error then)."""
    names = statement.split("import", 1)[1].replace("(", " ").replace(")", " ").replace("\\", " ")
    flags = 0
    for part in names.split(","):
        name = part.split(" as ")[0].strip()
        feature = getattr(__future__, name, None) if name in __future__.all_feature_names else None
        if feature is None or name == "barry_as_FLUFL":
            return None
        flags |= feature.compiler_flag
    return flags


def _piece_compiles(piece: bytes, flags: int) -> bool:
    key = (hashlib.blake2b(piece, digest_size=16).digest(), flags)
    with _COMPILED_LOCK:
        known = _COMPILED.get(key)
        if known is not None:
            _COMPILED.move_to_end(key)
            return known
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(piece.decode("utf-8", errors="surrogatepass"), "<suite>", "exec", flags=flags, dont_inherit=True)
        ok = True
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        ok = False
    with _COMPILED_LOCK:
        _COMPILED[key] = ok
        while len(_COMPILED) > _MAX_COMPILED:
            _COMPILED.popitem(last=False)
    return ok

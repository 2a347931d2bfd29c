"""``# prism: ignore`` comments: reading them, honouring them, and writing them.

``# prism: ignore[kind-a, kind-b]`` silences those finding kinds on its line; a bare
``# prism: ignore`` silences every kind. Comments are found with tree-sitter, so a ``#``
inside a string literal is never taken for a comment, and a broken buffer still works.
"""

from __future__ import annotations

import re

from prism_lsp.analysis.limits import size_problem
from prism_lsp.analysis.source import Source, parse_bytes

# Kinds are words like `weak-assertion`; the bracket part is optional (bare = all kinds).
_IGNORE = re.compile(r"#\s*prism:\s*ignore\b(?:\[(?P<kinds>[^\]]*)\])?")

Ignores = dict[int, frozenset[str] | None]


def ignored_kinds(text: str) -> Ignores:
    """1-based line -> kinds ignored on it (``None`` means every kind).

    Lines without an ignore comment are absent. Several comments on one line merge; a bare
    ignore anywhere on the line wins. A document past the size limit is not parsed: none.
    """
    if size_problem(text) is not None or not _IGNORE.search(text):
        return {}  # no such comment anywhere (the common case): nothing to parse
    found: Ignores = {}
    for node in Source(text).whole().marked["comment"]:
        comment = node.text.decode("utf-8", errors="replace") if node.text else ""
        line = node.start_point.row + 1
        for match in _IGNORE.finditer(comment):
            found[line] = _merge(found.get(line, frozenset()), _kinds(match.group("kinds")))
    return found


def is_ignored(ignores: Ignores, kind: str, start_line: int, end_line: int, *, rule: str | None = None) -> bool:
    """True when any line in ``start_line..end_line`` ignores ``kind`` (or all kinds).

    So the comment may sit on any line of a multi-line assert, usually its last. When
    ``rule`` is given (``type-only``...), a comment naming just that rule also counts.
    """
    for line in range(start_line, max(start_line, end_line) + 1):
        if line in ignores:
            kinds = ignores[line]
            if kinds is None or kind in kinds or (rule is not None and rule in kinds):
                return True
    return False


def ignore_comment_edit(line_text: str, kind: str) -> str:
    """``line_text`` with ``kind`` ignored: merged into an existing ``# prism: ignore[...]``
    comment on the line, else ``  # prism: ignore[kind]`` appended. A line already
    ignoring the kind (or all kinds) comes back unchanged. The line ending is kept.
    """
    body, ending = _split_ending(line_text)
    comment_start = _comment_start(body)
    if comment_start is not None:
        comment = body[comment_start:]
        match = _IGNORE.search(comment)
        if match is not None:
            kinds = _kinds(match.group("kinds"))
            if kinds is None or kind in kinds:
                return line_text
            merged = ", ".join([*_ordered_kinds(match.group("kinds")), kind])
            replacement = f"# prism: ignore[{merged}]"
            comment = comment[: match.start()] + replacement + comment[match.end() :]
            return body[:comment_start] + comment + ending
    stripped = body.rstrip()
    separator = "  " if stripped else ""
    return f"{stripped}{separator}# prism: ignore[{kind}]{ending}"


def _kinds(group: str | None) -> frozenset[str] | None:
    if group is None:
        return None
    return frozenset(_ordered_kinds(group))


def _ordered_kinds(group: str | None) -> list[str]:
    return [k.strip() for k in (group or "").split(",") if k.strip()]


def _merge(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None or b is None:
        return None
    return a | b


def _split_ending(line_text: str) -> tuple[str, str]:
    for ending in ("\r\n", "\n", "\r"):
        if line_text.endswith(ending):
            return line_text[: -len(ending)], ending
    return line_text, ""


def _comment_start(line: str) -> int | None:
    """Character index of the comment on this single line, parsed on its own (None if none)."""
    data = line.encode("utf-8", errors="surrogatepass")
    stack = [parse_bytes(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            prefix = data[: node.start_byte].decode("utf-8", errors="replace")
            return len(prefix)
        stack.extend(node.children)
    return None

"""Analysis positions (1-based lines, str-character columns) -> LSP ranges.

LSP lines are 0-based and columns count code units of the negotiated position
encoding (UTF-16 unless the client offered UTF-32 or UTF-8).
"""

from __future__ import annotations

import re

from lsprotocol import types

from prism_lsp.analysis.span import Span

_EOL = re.compile(r"\r\n|\r|\n")


class Lines:
    """The lines of one buffer, for converting columns."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        # LSP ends lines at \n, \r\n and \r only; str.splitlines would also split at form
        # feeds and \u2028, shifting every range after them.
        self.lines = _EOL.split(text)
        self.encoding = encoding
        self._ascii = text.isascii()  # one code unit per character in every encoding

    def text(self, line: int) -> str:
        """1-based line's text ('' past the end)."""
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else ""

    def column(self, line: int, col: int) -> int:
        prefix = self.text(line)[:col]
        if self.encoding == "utf-32" or self._ascii:
            return len(prefix)
        if self.encoding == "utf-8":
            return len(prefix.encode("utf-8", errors="surrogatepass"))
        return len(prefix.encode("utf-16-le", errors="surrogatepass")) // 2

    def char_index(self, line: int, units: int) -> int:
        """LSP column on 1-based `line` -> str index."""
        text = self.text(line)
        for i in range(len(text) + 1):
            if self.column(line, i) >= units:
                return i
        return len(text)

    def span_range(self, span: Span) -> types.Range:
        return types.Range(
            types.Position(max(span.start_line - 1, 0), self.column(span.start_line, span.start_col)),
            types.Position(max(span.end_line - 1, 0), self.column(span.end_line, span.end_col)),
        )

    def line_range(self, line: int) -> types.Range:
        """The non-blank part of 1-based `line` (the whole line when blank)."""
        text = self.text(line)
        start = len(text) - len(text.lstrip())
        end = len(text.rstrip())
        if end <= start:
            start, end = 0, len(text)
        return self.span_range(Span(line, start, line, end))

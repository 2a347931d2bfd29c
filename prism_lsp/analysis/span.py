"""Source positions shared by every analysis result.

Lines are 1-based (like pytest and :mod:`ast`); columns are 0-based indexes into the
Python ``str`` of the line (characters, not bytes, not UTF-16 units). The LSP layer
converts to its own encoding later.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A half-open range ``(start_line, start_col) .. (end_line, end_col)``."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains_line(self, line: int) -> bool:
        """True when ``line`` (1-based) is one of the lines this span touches."""
        return self.start_line <= line <= self.end_line

"""Content hashes that decide which tests must rerun after an edit.

A test's hash covers its own text only (decorators included), so editing one test does not
invalidate the others. The shared hash covers everything else (imports, fixtures, helpers,
constants, and test-class headers and non-test members): a change there may affect any test.
"""

from __future__ import annotations

import hashlib


def text_hash(text: str) -> str:
    """A stable hex digest of ``text`` (same text, same hash, across processes)."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


def shared_code_hash(data: bytes, owned: list[tuple[int, int]]) -> str:
    """Hash of ``data`` with the ``owned`` byte ranges (the tests, the comments) cut out.

    Blank lines and trailing spaces are ignored, so adding or removing a test (and the
    blank lines around it) leaves the shared hash unchanged.
    """
    pieces: list[bytes] = []
    position = 0
    for start, end in sorted(owned):
        if start >= position:
            pieces.append(data[position:start])
            position = end
        else:
            position = max(position, end)
    pieces.append(data[position:])
    kept = b"\n".join(pieces).decode("utf-8", errors="replace")
    lines = [line.rstrip() for line in kept.split("\n")]
    return text_hash("\n".join(line for line in lines if line))

"""Text from inside a sandbox, made safe to put in a report: no control characters, bounded length."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
MAX_CHARS = 2000


def clean(text: str, limit: int = MAX_CHARS) -> str:
    """`text` without control characters (XML 1.0 forbids most), cut to `limit` characters."""
    text = _CONTROL.sub("\ufffd", str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"

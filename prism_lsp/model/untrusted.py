"""Text from untrusted sources (a sandbox, a task folder), made safe to show anywhere.

A suite or a candidate prints what it likes, and a runner passes it on as test names,
messages and values; a task folder's notes and diffs are just as foreign. Before any
terminal, report or editor sees such text, :func:`plain` removes what could act instead
of being read: terminal control sequences (ESC/CSI/OSC/DCS..., the 8-bit C1 forms), every
other control character but newline and tab (BEL, backspace, carriage return, which can
overwrite a line on a terminal), and the Unicode direction overrides that make text read
differently from what it is (Trojan Source). It also caps the length. Rich markup needs
no treatment here: whoever prints this text prints it as data (`rich.text.Text`), never
as markup.
"""

from __future__ import annotations

import re

# A whole escape sequence, so its parameters do not stay behind as text:
# CSI (ESC [ or 0x9b) params + final byte; OSC/DCS/APC/PM/SOS (ESC ] P _ ^ X or 0x9d 0x90
# 0x9f 0x9e 0x98) up to BEL or ST (ESC \ or 0x9c), or up to the end when never terminated;
# any other two-character ESC sequence (ESC c, ESC 7, ESC ( B ...).
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]P_^X]|[\x9d\x90\x9f\x9e\x98]).*?(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?",
    re.DOTALL,
)
# Every remaining C0 control but \t and \n, DEL, C1, and the bidirectional controls
# (LRE RLE PDF LRO RLO, LRI RLI FSI PDI, LRM RLM ALM).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")

TEXT_LIMIT = 4000  # characters of one message or value: enough for any assertion, not a flood
NAME_LIMIT = 300  # characters of one test name or reason
ELLIPSIS = "…"


def plain(text: object, limit: int = TEXT_LIMIT) -> str:
    """`text` without control sequences or direction overrides, at most `limit` characters.

    Anything that is not a string (a runner answered a number, a null) becomes its
    string form first, so a forged field cannot make the host raise.
    """
    if text is None:
        return ""
    value = text if isinstance(text, str) else str(text)
    # Cap before scanning too: a sandbox may send megabytes; the regexes stay linear either way.
    if len(value) > 4 * limit:
        value = value[: 4 * limit]
    value = _CONTROL.sub("", _SEQUENCE.sub("", value))
    # Lone surrogates (from a file name that is not UTF-8) cannot be encoded for a terminal or JSON.
    value = value.encode("utf-8", "replace").decode("utf-8")
    return value if len(value) <= limit else value[: limit - 1] + ELLIPSIS

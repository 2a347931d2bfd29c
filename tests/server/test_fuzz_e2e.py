"""Fuzz: 1,000 random edits streamed into the real server. It never crashes, and after every
100 edits its last publication equals a fresh (uncached) check of the text at that point.

Edits mix character noise (a random fragment inserted, or a random span deleted, at a random
offset and undone by the next edit, like a typo being fixed) with line-level edits (a
statement or a test inserted with matching indentation, an assertion deleted), so the
buffer is often valid between typos and panels really run.
"""

from __future__ import annotations

import random

import pytest
from lsprotocol import types

from prism_lsp.document.checker import Checker
from prism_lsp.server.diagnostics import Options, build_diagnostics
from prism_lsp.server.settings import parse_settings
from tests.server.harness import CACHE, FAST, FIXTURES, open_doc

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
EDITS = 1000
CHECKPOINT = 100
SETTINGS = {**FAST, "debounceMs": 20}
NOISE = [
    "x",
    " ",
    "(",
    ")",
    ":",
    "[",
    "]",
    "==",
    " 3",
    "1",
    "\n",
    "    ",
    "# note",
    "assert ",
    "pass",
    "def ",
    "mean_rounded(",
    "é",
    "🙂",
    "'",
    '"""',
]
STATEMENTS = [
    "assert mean_rounded([1, 2, 3]) == 2",
    "assert mean_rounded([5]) == 5",
    "assert mean_rounded([1, 4]) == 3",
    "assert mean_rounded([1, 4]) in (2, 3)",
    "assert mean_rounded([-1, -2]) in (-1, -2)",
    "assert isinstance(mean_rounded([3]), int)",
    "values = [1, 2]",
    "assert mean_rounded([2, 2]) == 2  # prism: ignore[rejects-valid]",
]


def _position(text: str, offset: int) -> types.Position:
    before = text[:offset]
    col_text = before[before.rfind("\n") + 1 :]
    return types.Position(before.count("\n"), len(col_text.encode("utf-16-le")) // 2)


class Editor:
    """Produces random (start, end, replacement) edits over a text it keeps in sync."""

    def __init__(self, rng: random.Random, text: str) -> None:
        self.rng, self.text, self.undo, self.tests = rng, text, None, 0

    def next(self, settle: bool = False) -> tuple[int, int, str]:
        """The next edit; with `settle`, never one that leaves a typo behind."""
        rng, text = self.rng, self.text
        if self.undo is not None:
            edit, self.undo = self.undo, None
            return edit
        self.undo = None
        if not settle and rng.random() < 0.5:
            start = rng.randint(0, len(text))
            if rng.random() < 0.3 and text:
                end = min(len(text), start + rng.randint(1, 12))
                self.undo = (start, start, text[start:end])
                return start, end, ""
            frag = rng.choice(NOISE)
            self.undo = (start, start + len(frag), "")
            return start, start, frag
        starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        i = rng.randrange(1, len(starts)) if len(starts) > 1 else 0
        line_start = starts[i]
        line_end = starts[i + 1] if i + 1 < len(starts) else len(text)
        line = text[line_start:line_end]
        prev = text[starts[i - 1] : line_start] if i > 0 else ""
        if rng.random() < 0.25 and line.startswith("    assert") and prev.startswith("    "):
            return line_start, line_end, ""
        if rng.random() < 0.2:
            self.tests += 1
            return len(text), len(text), f"\n\ndef test_fuzz_{self.tests}():\n    {rng.choice(STATEMENTS)}\n"
        if not (line.startswith("def ") or line.startswith("    ")):
            return line_start, line_start, "\n"
        indent = "    "
        return line_end, line_end, (("" if line.endswith("\n") else "\n") + indent + rng.choice(STATEMENTS) + "\n")

    def apply(self, start: int, end: int, new: str) -> types.TextDocumentContentChangePartial:
        change = types.TextDocumentContentChangePartial(
            range=types.Range(_position(self.text, start), _position(self.text, end)), text=new
        )
        self.text = self.text[:start] + new + self.text[end:]
        return change


def _key(d: types.Diagnostic) -> tuple:
    related = tuple((r.location.uri, r.location.range.start.line) for r in d.related_information or ())
    return (
        d.range.start.line,
        d.range.start.character,
        d.range.end.line,
        d.range.end.character,
        d.code,
        d.severity,
        d.message,
        related,
    )


@pytest.mark.slow
@pytest.mark.settings(SETTINGS)
async def test_thousand_random_edits_always_end_in_a_fresh_result(client):
    rec = client.recorder
    editor = Editor(random.Random(20261201), OVERFIT.read_text())
    uri = open_doc(client, OVERFIT, editor.text)
    fresh = Checker(CACHE, reuse=False)  # warm runners, but no result cache: every check is a fresh run
    settings = parse_settings(SETTINGS).settings
    ran = 0
    try:
        for version in range(2, EDITS + 2):
            change = editor.apply(*editor.next(settle=(version - 1) % CHECKPOINT == 0))
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version=version, uri=uri), [change]
                )
            )
            if (version - 1) % CHECKPOINT:
                continue
            published = await rec.final_diagnostics(uri, version)
            check = fresh.check(OVERFIT, version, editor.text, settings)
            ran += check.run is not None
            expected = build_diagnostics(check, settings, Options(related_information=True))
            got, want = [_key(d) for d in published], [_key(d) for d in expected]
            assert got == want, (
                f"after {version - 1} edits: published {[k for k in got if k not in want]}, "
                f"fresh {[k for k in want if k not in got]}"
            )
    finally:
        fresh.close()
    published_versions = [v for v in rec.versions(uri) if v != 1]
    assert published_versions == sorted(published_versions), "never an older version after a newer one"
    assert ran >= 3, "the fuzz should reach valid buffers that really run"
    assert not [m for m in client.messages if m.type == types.MessageType.Error]

"""A suggestion as data: what `prism suggest --json` prints and `prism mcp` answers."""

from __future__ import annotations

from prism_lsp.model.run import Suite
from prism_lsp.suggest.build import Suggestion
from prism_lsp.suggest.edits import apply_edits, unified_diff
from prism_lsp.suggest.titles import title


def as_data(s: Suggestion, suite: Suite, reveal: str) -> dict:
    """One suggestion as `prism suggest --json` prints it."""
    e = s.edit
    return {
        "kind": s.kind,
        "line": s.line,
        "title": title(s, reveal),
        "new_text": e.new_text,
        "range": {
            "start": {"line": e.start_line, "character": e.start_col},
            "end": {"line": e.end_line, "character": e.end_col},
        },
        "verified": {
            "valid_accepted": s.verified.valid_accepted,
            "valid_total": s.verified.valid_total,
            "invalid_rejected": s.verified.invalid_rejected,
            "invalid_total": s.verified.invalid_total,
            "detects_baseline": s.verified.detects_baseline,
        },
        "diff": unified_diff(suite.text, apply_edits(suite.text, [e]), suite.rel_path),
    }

"""Suggestions: edits of the suite that fix a finding, verified on the panel before they are shown.

`suggest(session, task, suite, run)` returns the verified `Suggestion`s for one panel run;
`apply_all(text, suggestions)` writes them into the suite's text; `unified_diff` shows one.
Reveal is the caller's job: below `labels` nothing here may reach the author.
"""

from prism_lsp.suggest.build import Suggestion, Verified, apply_all, suggest
from prism_lsp.suggest.edits import Edit, apply_edits, unified_diff

__all__ = ["Edit", "Suggestion", "Verified", "apply_all", "apply_edits", "suggest", "unified_diff"]

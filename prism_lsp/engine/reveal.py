"""Where `panel_to_run` was before the judge moved out of engine/: prism_lsp/judge/reveal.py.

Kept only for scheduler/cached_session.py, which imports it from here; once that module imports
`prism_lsp.judge.reveal`, this file goes.
"""

from prism_lsp.judge.reveal import panel_to_run

__all__ = ["panel_to_run"]

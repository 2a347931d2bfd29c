"""Build one program tree per candidate (initial state + diff or overlay), cached by digest."""

from prism_lsp.materialize.cache import MaterializeError, ProgramTree, TreeCache

__all__ = ["MaterializeError", "ProgramTree", "TreeCache"]

"""The one error type of the importers (its own module so every importer module can raise it)."""

from __future__ import annotations

from prism_lsp.model.manifest import ManifestError


class TaskImportError(ManifestError):
    """An import problem: the source file, the key (or field) and what was expected."""

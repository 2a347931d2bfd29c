"""A task from a bug fix in the author's own git repository (`prism init`), and scaffolds.

`git` reads the repository (never writes to its work tree), `split` divides a fix into the
reference and the suites, `layout` reads how the repository runs its tests (pytest
configuration, import roots, venv, generated files), `writer` writes the task atomically,
`scaffold` makes a function-level task folder for a teacher.
"""

from prism_lsp.repo.errors import InitError

__all__ = ["InitError"]

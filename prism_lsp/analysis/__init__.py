"""Static analysis of the suite buffer with tree-sitter (works on broken code).

- :mod:`~prism_lsp.analysis.suite_map`: tests, assertions, syntax errors and hashes.
- :mod:`~prism_lsp.analysis.weak_assertions`: static ``weak-assertion`` findings.
- :mod:`~prism_lsp.analysis.ignores`: ``# prism: ignore[...]`` comments.

Positions are :class:`~prism_lsp.analysis.span.Span`: 1-based lines, 0-based character
columns. Nothing here imports LSP types; the server converts.
"""

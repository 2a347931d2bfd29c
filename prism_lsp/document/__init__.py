"""The checked document: one version of a buffer, its suite map, static findings, run and report.

Pure of LSP (the server translates it): :mod:`check` (the :class:`Check` and its state),
:mod:`checker` (analyse a version, run the panel on it), :mod:`carry` (which findings of the
last run still hold for a newer version), :mod:`outcomes` (per-test and per-assertion views),
:mod:`standing` (where a document stands now: what status and lenses both say)
and :mod:`candidates` (the panel as commands show it, at the reveal level).
"""

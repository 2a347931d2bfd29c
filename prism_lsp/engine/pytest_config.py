"""The pytest configuration a suite is judged with: the initial state's, whatever a candidate changed.

pytest reads its options (`addopts = -p plugin` among them) from the first configuration file it
finds from the suite's folder up; a candidate that adds or edits one could load a plugin that
passes every test. So the host finds that file in the initial tree, by pytest's own rules (the one
table of `tasks/pytest_config.py`: pytest 9's `pytest.toml` and `[tool.pytest]` too), and the
runner runs every program with exactly it (`pytest -c`), or with an empty one when the initial
state has none: a candidate's configuration files are never read.
"""

from __future__ import annotations

from pathlib import Path

from prism_lsp.tasks.pytest_config import nearest_config


def initial_config(tree: Path, suite_rel: str) -> tuple[str, str] | None:
    """(relative path, text) of the pytest configuration file of `tree` for the suite at
    `suite_rel`, or None when there is none."""
    config = nearest_config(tree, suite_rel)
    if config.file is None:
        return None
    return config.file.relative_to(tree).as_posix(), config.text

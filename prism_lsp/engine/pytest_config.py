"""The pytest configuration a suite is judged with: the initial state's, whatever a candidate changed.

pytest reads its options (`addopts = -p plugin` among them) from the first of pytest.ini,
.pytest.ini, pyproject.toml, tox.ini and setup.cfg it finds from the suite's folder up; a
candidate that adds or edits one of those could load a plugin that passes every test. So
the host finds that file in the initial tree, by pytest's own rules, and the runner runs
every program with exactly it (`pytest -c`), or with an empty one when the initial state
has none: a candidate's configuration files are never read.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

# (file name, marker that makes it pytest's configuration), in pytest's order of preference.
_CANDIDATES = (("pytest.ini", None), (".pytest.ini", None), ("pyproject.toml", "[tool.pytest.ini_options]"),
               ("tox.ini", "[pytest]"), ("setup.cfg", "[tool:pytest]"))
_MAX_BYTES = 1 << 20


def initial_config(tree: Path, suite_rel: str) -> tuple[str, str] | None:
    """(relative path, text) of the pytest configuration file of `tree` for the suite at
    `suite_rel`, or None when there is none."""
    folders = [PurePosixPath(suite_rel).parent, *PurePosixPath(suite_rel).parent.parents]
    for folder in dict.fromkeys(folders):
        for name, marker in _CANDIDATES:
            rel = (folder / name).as_posix() if str(folder) != "." else name
            path = tree / rel
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if marker is None or any(line.strip() == marker for line in text.splitlines()):
                return rel, text
    return None

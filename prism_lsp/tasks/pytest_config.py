"""A program tree's pytest configuration, read the way pytest 9 finds it.

Runs happen with the program tree as pytest's rootdir, so the configuration file at the
tree's root decides what pytest collects (`python_files`) and what it puts on `sys.path`
(`pythonpath`). Files are tried in pytest's own order; the first one that holds pytest
configuration wins: `pytest.toml`/`.pytest.toml` (`[pytest]`, native TOML), `pytest.ini`/
`.pytest.ini` (pytest's even without a `[pytest]` section), `pyproject.toml` (`[tool.pytest]`,
native TOML, or `[tool.pytest.ini_options]`, INI strings), `tox.ini` (`[pytest]`), `setup.cfg`
(`[tool:pytest]`). Pure: reads files, never imports or runs pytest. A file that cannot be
parsed still wins, with no options, as in pytest (whose run then reports its own error).

This is the one table of configuration files (as pytest's `findpaths.py` keeps its own): what a
program tree collects, what goes on `sys.path`, and the file every program is judged with
(`initial_config`, pytest's `-c`) all come from it. A link or a file over `_MAX_BYTES`
is never pytest's configuration here.
"""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")  # pytest's own default `python_files`


@dataclass(frozen=True)
class PytestConfig:
    """The options Prism needs; `file` is None when the tree has no pytest configuration."""

    file: Path | None = None
    options: dict[str, str | list] = field(default_factory=dict)
    text: str = ""  # the file's text, as the runner is given it

    def lines(self, name: str) -> tuple[str, ...]:
        """An option pytest reads as a list (`args`, `linelist` or `paths`): a TOML array, or INI text
        split on whitespace."""
        value = self.options.get(name)
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(value.split())
        return tuple(str(v) for v in value)

    @property
    def python_files(self) -> tuple[str, ...]:
        return self.lines("python_files") or DEFAULT_PYTHON_FILES

    @property
    def pythonpath(self) -> tuple[str, ...]:
        """Folders pytest puts first on `sys.path`, relative to the configuration file's folder."""
        return self.lines("pythonpath")


_MAX_BYTES = 1 << 20


def _ini(text: str, section: str) -> dict[str, str] | None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    return dict(parser.items(section)) if parser.has_section(section) else None


def _pyproject(text: str) -> dict | None:
    table = tomllib.loads(text).get("tool", {}).get("pytest")
    if not isinstance(table, dict):
        return None
    native = {k: v for k, v in table.items() if k != "ini_options"}
    if native:  # pytest 9's `[tool.pytest]`: native TOML values
        return native
    ini = table.get("ini_options")
    return ini if isinstance(ini, dict) else None


# (file name, reader of its text returning the options, or None when the file is not pytest's
# configuration), in pytest's order of preference: its CONFIG_LOADERS_BY_NAME.
_READERS = (
    ("pytest.toml", lambda t: tomllib.loads(t).get("pytest", {})),
    (".pytest.toml", lambda t: tomllib.loads(t).get("pytest", {})),
    ("pytest.ini", lambda t: _ini(t, "pytest") or {}),
    (".pytest.ini", lambda t: _ini(t, "pytest") or {}),
    ("pyproject.toml", _pyproject),
    ("tox.ini", lambda t: _ini(t, "pytest")),
    ("setup.cfg", lambda t: _ini(t, "tool:pytest")),
)


def read_pytest_config(folder: Path) -> PytestConfig:
    """The pytest configuration in `folder` itself (empty when there is none)."""
    for name, reader in _READERS:
        path = folder / name
        try:
            if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        try:
            options = reader(text)
        except (ValueError, RecursionError, tomllib.TOMLDecodeError, configparser.Error):
            return PytestConfig(path, {}, text)  # pytest stops at it too, with its own error
        if options is not None:
            return PytestConfig(path, dict(options) if isinstance(options, dict) else {}, text)
    return PytestConfig()


def nearest_config(tree: Path, rel: str) -> PytestConfig:
    """The configuration pytest uses for the file `rel` of `tree`: the first one found in its folder
    or above, up to the tree's root (how pytest locates it from the path it is given)."""
    folder = (tree / rel).parent
    while True:
        config = read_pytest_config(folder)
        if config.file is not None or folder == tree or tree not in folder.parents:
            return config
        folder = folder.parent


def initial_config(tree: Path, suite_rel: str) -> tuple[str, str] | None:
    """(relative path, text) of the pytest configuration file of `tree` for the suite at
    `suite_rel`, or None when there is none: the file every program is judged with.

    pytest reads its options (`addopts = -p plugin` among them) from the first configuration file
    it finds from the suite's folder up; a candidate that adds or edits one could load a plugin that
    passes every test. So the host finds that file in the initial tree and the runner runs every
    program with exactly it (`pytest -c`), or with an empty one when the initial state has none: a
    candidate's configuration files are never read."""
    config = nearest_config(tree, suite_rel)
    if config.file is None:
        return None
    return config.file.relative_to(tree).as_posix(), config.text

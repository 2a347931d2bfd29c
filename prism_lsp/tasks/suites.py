"""Which files of a task folder are suites, i.e. may be run against the panel.

A suite runs at its own relative path inside every program tree, so running a
program file (`initial/solution.py`, a candidate overlay's file) "as a suite" would
replace that file in every tree; and a Python file pytest would not collect is not a
suite at all. Pure: reads at most the initial program's pytest configuration.
"""

from __future__ import annotations

import configparser
import os
import tomllib
from fnmatch import fnmatch
from pathlib import Path

from prism_lsp.model.task import Task

DEFAULT_PYTHON_FILES = ("test_*.py", "*_test.py")  # pytest's own default `python_files`

# pytest's order of configuration files, and the section each keeps its options in.
_INI_FILES = (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("pyproject.toml", None),
              ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))


def python_files(folder: Path) -> tuple[str, ...]:
    """The `python_files` patterns of the pytest configuration in `folder` (the default when none).

    Runs happen with the program tree as pytest's rootdir, so the initial program's own
    configuration is the one that decides what pytest collects."""
    for name, section in _INI_FILES:
        path = folder / name
        if not path.is_file():
            continue
        try:
            if section is None:
                options = tomllib.loads(path.read_text()).get("tool", {}).get("pytest", {}).get("ini_options")
                if options is None:
                    continue  # a pyproject.toml without pytest options is not pytest's configuration
                value = options.get("python_files")
            else:
                parser = configparser.ConfigParser(interpolation=None)
                parser.read_string(path.read_text())
                if not parser.has_section(section):
                    if name.endswith(".ini") and name != "tox.ini":
                        return DEFAULT_PYTHON_FILES  # pytest.ini is pytest's even without the section
                    continue
                value = parser.get(section, "python_files", fallback=None)
        except (OSError, ValueError, RecursionError, tomllib.TOMLDecodeError, configparser.Error):
            continue
        if value is None:
            return DEFAULT_PYTHON_FILES
        patterns = tuple(value.split()) if isinstance(value, str) else tuple(str(v) for v in value)
        return patterns or DEFAULT_PYTHON_FILES
    return DEFAULT_PYTHON_FILES


def matches(path: Path, patterns: tuple[str, ...]) -> bool:
    """pytest's `fnmatch_ex`: a pattern without a separator matches the file name only."""
    for pattern in patterns:
        if os.sep not in pattern and "/" not in pattern:
            if fnmatch(path.name, pattern):
                return True
        elif fnmatch(str(path), pattern if os.path.isabs(pattern) else f"*{os.sep}{pattern}"):
            return True
    return False


def not_a_suite(path: Path, task: Task) -> str | None:
    """Why the file at `path` is not a suite of `task` (a phrase for "not run: ..."), or None."""
    path = path.resolve()
    initial = task.initial.resolve()
    # When the initial program is the task root itself, its location says nothing.
    if initial != task.root.resolve() and path.is_relative_to(initial):
        return "this file is part of the initial program, not a suite"
    for cand in task.candidates:
        if cand.kind == "overlay" and path.is_relative_to(cand.source.resolve()):
            return "this file is part of a candidate, not a suite"
    if task.test_command is None:  # a task judged by its own command may name its suite anything
        patterns = python_files(task.initial)
        if not matches(path, patterns):
            return f"not a test file (pytest collects {' or '.join(patterns)})"
    return None

"""Which files of a task folder are suites, i.e. may be run against the panel.

A suite runs at its own relative path inside every program tree, so running a
program file (`initial/solution.py`, a file a candidate changes, a module the program
imports) "as a suite" would replace that file in every tree; and a Python file pytest
would not collect is not a suite at all. Pure: reads the task's files, never writes.
"""

from __future__ import annotations

import logging
import os
import re
from fnmatch import fnmatch
from pathlib import Path, PurePath

from prism_lsp.materialize.diffcheck import UnsafeDiff, summarize_diff
from prism_lsp.model.task import Task
from prism_lsp.tasks.pytest_config import DEFAULT_PYTHON_FILES, read_pytest_config

log = logging.getLogger(__name__)


def python_files(folder: Path) -> tuple[str, ...]:
    """The `python_files` patterns of the pytest configuration in `folder` (the default when none).

    Runs happen with the program tree as pytest's rootdir, so the initial program's own
    configuration is the one that decides what pytest collects (read as pytest 9 reads it)."""
    return read_pytest_config(folder).python_files


def matches(path: PurePath, patterns: tuple[str, ...]) -> bool:
    """pytest's `fnmatch_ex`: a pattern without a separator matches the file name only."""
    for pattern in patterns:
        if os.sep not in pattern and "/" not in pattern:
            if fnmatch(path.name, pattern):
                return True
        elif fnmatch(str(path), pattern if os.path.isabs(pattern) else f"*{os.sep}{pattern}"):
            return True
    return False


def not_a_suite(path: Path, task: Task) -> str | None:
    """Why the file at `path` is not a suite of `task` (a phrase for "not run: ..."), or None.

    Any file pytest would collect is a suite wherever it sits, the initial program's folder
    included (the author's workspace: DESIGN's suite at `<initial>/<rel path>`), unless it is
    part of the program: a candidate changes it, or the program imports it."""
    path = path.resolve()
    if task.verifier is not None and path == task.verifier.resolve():
        return "this file is the task's verifier (trusted: it decides validity), not a suite"
    initial = task.initial.resolve()
    for cand in task.candidates:
        if cand.kind == "overlay" and path.is_relative_to(cand.source.resolve()):
            return "this file is part of a candidate, not a suite"
    # When the initial program is the task root itself, its location says nothing.
    inside = initial != task.root.resolve() and path.is_relative_to(initial)
    patterns = python_files(task.initial) if task.test_command is None else None
    if patterns is not None and not matches(path, patterns):
        if inside:
            return PART_OF_PROGRAM
        return f"not a test file (pytest collects {' or '.join(patterns)})"
    if inside:
        rel = path.relative_to(initial).as_posix()
        if rel in changed_by_candidates(task) or imported_by_program(initial, path, patterns or DEFAULT_PYTHON_FILES):
            return PART_OF_PROGRAM
    return None


PART_OF_PROGRAM = "this file is part of the initial program, not a suite"


def changed_by_candidates(task: Task) -> set[str]:
    """The initial-relative paths some candidate's diff or overlay changes (unreadable ones: none)."""
    changed: set[str] = set()
    for cand in task.candidates:
        try:
            if cand.kind == "overlay":
                changed.update(p.relative_to(cand.source).as_posix() for p in cand.source.rglob("*") if p.is_file())
            else:
                changed.update(summarize_diff(cand.source.read_text(encoding="utf-8", errors="replace")).files)
        except (OSError, UnsafeDiff) as exc:
            log.debug("cannot read what candidate %s changes: %r", cand.id, exc)
    return changed


_IMPORT = r"^\s*(?:from\s+(?:[\w.]*\.)?{name}\s+import\b|import\s+(?:[\w.]*\.)?{name}\b|from\s+[\w.]+\s+import\s+[^\n]*\b{name}\b)"


def imported_by_program(initial: Path, path: Path, patterns: tuple[str, ...]) -> bool:
    """Whether a program file of `initial` (one pytest would not collect) imports the module at `path`.

    Read as text: a file the program imports is part of the program, whatever its name."""
    pattern = re.compile(_IMPORT.format(name=re.escape(path.stem)), re.MULTILINE)
    for source in initial.rglob("*.py"):
        if source.resolve() == path or matches(source, patterns):
            continue
        try:
            if pattern.search(source.read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError as exc:
            log.debug("cannot read %s: %r", source, exc)
    return False

"""Splitting a fix into the reference and the suites, as SWE-bench splits `patch` from `test_patch`.

A changed file is a *test file* when pytest would collect it (the tree's `python_files`), when it
is a `conftest.py`, or when it lies in a `tests`/`test`/`testing` folder (fixtures, data, helpers).
- suites: the test modules the fix adds or changes (each judged at its own path);
- test support: the other test files the fix changes; they join the initial state, as the test
  patch's fixtures do in SWE-bench, so every program (the initial one too) sees them;
- reference: every other change, the fix itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from prism_lsp.repo.git import Change
from prism_lsp.tasks.suites import matches

TEST_FOLDERS = {"tests", "test", "testing"}


def is_test_file(path: str, patterns: tuple[str, ...]) -> bool:
    p = PurePosixPath(path)
    return (
        p.name == "conftest.py"
        or (p.suffix == ".py" and matches(p, patterns))
        or any(part in TEST_FOLDERS for part in p.parts[:-1])
    )


@dataclass
class Split:
    suites: list[str] = field(default_factory=list)  # test modules added or changed
    support: list[Change] = field(default_factory=list)  # other test files, joining the initial state
    reference: list[Change] = field(default_factory=list)  # the fix proper

    @property
    def reference_paths(self) -> list[str]:
        """Pathspecs of the reference diff: both sides of a rename, so it stays a rename."""
        return sorted({p for c in self.reference for p in (c.path, c.old) if p})


def split_fix(changed: list[Change], patterns_of: Callable[[str], tuple[str, ...]]) -> Split:
    """`patterns_of(path)`: the `python_files` of the pytest configuration that governs `path`."""
    split = Split()
    for change in changed:
        patterns = patterns_of(change.path)
        if not is_test_file(change.path, patterns):
            split.reference.append(change)
        elif change.status != "D" and change.path.endswith(".py") and matches(PurePosixPath(change.path), patterns):
            split.suites.append(change.path)
        else:
            split.support.append(change)
    return split

"""How a repository runs its tests: import roots, its venv, files its build generates.

- Import roots: a `src/` layout's code is importable only through an install; when the
  repository's pytest configuration does not put `src` on `sys.path` itself (`pythonpath`),
  the task asks the runner to (manifest `pythonpath`), so each program imports its own tree
  and never the working checkout an editable install points at.
- The venv: see `repo/venv.py` (found by reading its files, never run on the host).
- Generated files: Python files git ignores, or untracked ones an install writes
  (`environment.py`), inside a folder of tracked code (the `_version.py` hatch-vcs or
  setuptools-scm writes); git never holds them, so they are copied into the initial state,
  hence into every program tree.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path, PurePosixPath

from prism_lsp.materialize.links import UnsafeLink, write_target
from prism_lsp.repo.venv import VENV_NAMES
from prism_lsp.tasks.pytest_config import nearest_config, read_pytest_config

MAX_GENERATED_BYTES = 1 << 20  # a generated module is small; a big ignored file is data, not code


def _setuptools_root(tree: Path) -> str | None:
    """`[tool.setuptools.package-dir]`'s root (`"" = "lib"`), when pyproject.toml names one."""
    try:
        data = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    root = data.get("tool", {}).get("setuptools", {}).get("package-dir", {}).get("")
    return root.strip("/") if isinstance(root, str) and root.strip("/") else None


def _holds_code(folder: Path) -> bool:
    return folder.is_dir() and any((d / "__init__.py").is_file() or d.suffix == ".py" for d in folder.iterdir())


def import_roots(tree: Path, suites: list[str]) -> list[str]:
    """Tree-relative folders to put first on `sys.path`: the `src/` (or setuptools `package-dir`)
    folder of the project each suite belongs to (the folder of its pytest configuration, else the
    tree's root); none for a project whose pytest configuration sets `pythonpath` itself."""
    roots: list[str] = []
    for rel in suites or [""]:
        config = nearest_config(tree, rel) if rel else read_pytest_config(tree)
        if config.pythonpath:
            continue
        project = config.file.parent if config.file else tree
        folder = project / (_setuptools_root(project) or "src")
        if ".." in PurePosixPath(folder.relative_to(tree).as_posix()).parts or not _holds_code(folder):
            continue
        root = folder.relative_to(tree).as_posix()
        if root not in roots:
            roots.append(root)
    return roots


def generated_files(ignored: list[str], tracked: list[str]) -> list[str]:
    """Among the ignored files, the Python modules lying in a folder of tracked Python code."""
    code_dirs = {str(PurePosixPath(p).parent) for p in tracked if p.endswith(".py")}
    out = []
    for rel in ignored:
        p = PurePosixPath(rel)
        if (
            p.suffix == ".py"
            and str(p.parent) in code_dirs
            and "__pycache__" not in p.parts
            and p.parts[0] not in (".prism", *VENV_NAMES)
        ):
            out.append(rel)
    return sorted(out)


def copy_generated(repo_root: Path, files: list[str], dest: Path) -> list[str]:
    """Copy the generated `files` (regular, small) from the work tree into `dest`; those copied."""
    copied = []
    for rel in files:
        src = repo_root / rel
        if src.is_symlink() or not src.is_file() or src.stat().st_size > MAX_GENERATED_BYTES:
            continue
        if os.path.lexists(dest / rel):
            continue  # git holds this path at the base revision: its version wins
        try:
            target = write_target(dest, rel)
        except UnsafeLink:
            continue  # its folder is a link in the initial state: never written through
        target.write_bytes(src.read_bytes())
        copied.append(rel)
    return copied

"""Untracked paths that are the developer's environment, never part of a fix, never "uncommitted changes".

A repository's `.gitignore` often misses them (toolz, networkx: no `.venv`; marshmallow lists only
`venv`), and then `git add -A` would make a reference that is the whole venv. Left out, whether or
not git ignores them:

- a venv: `.venv` at the root, any folder holding a `pyvenv.cfg` (or `conda-meta/`, a conda env);
- what an install or a test run writes: `*.egg-info/`, `.eggs/`, `__pycache__/`, `*.pyc`,
  `.pytest_cache/`, `build/` and `dist/` beside a project's `pyproject.toml`/`setup.py`/`setup.cfg`;
- the version file setuptools-scm or hatch-vcs writes: the one `pyproject.toml` names
  (`write_to`, `version_file`, `version-file`), or any untracked `_version.py`. Being Python code
  the program imports, it is carried into the initial state as a generated file (`layout.py`).

Only untracked paths are judged: a tracked file is the repository's, changed or not.
"""

from __future__ import annotations

import tomllib
from pathlib import Path, PurePosixPath

from prism_lsp.repo import git

CACHE_DIRS = ("__pycache__", ".pytest_cache", ".eggs")
BUILD_DIRS = ("build", "dist")
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_NESTED_VENV_DEPTH = 2  # a venv one or two folders inside an untracked folder (`envs/py311/`)


def is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _version_files(root: Path) -> set[str]:
    """The version files the root `pyproject.toml` tells setuptools-scm or hatch-vcs to write."""
    try:
        tool = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    scm = tool.get("setuptools_scm", {})
    hatch = tool.get("hatch", {})
    hooks = [hatch.get("build", {}).get("hooks", {}).get("vcs", {})]
    hooks += [
        t.get("hooks", {}).get("vcs", {})
        for t in hatch.get("build", {}).get("targets", {}).values()
        if isinstance(t, dict)
    ]
    names = [
        scm.get("write_to"),
        scm.get("version_file"),
        *(h.get("version-file") for h in hooks if isinstance(h, dict)),
    ]
    return {PurePosixPath(n).as_posix() for n in names if isinstance(n, str) and n}


def _generated(root: Path, rel: str, folder: bool, version_files: set[str]) -> bool:
    p = PurePosixPath(rel)
    if any(part in CACHE_DIRS or part.endswith(".egg-info") for part in p.parts):
        return True
    if folder:
        if (rel == ".venv") or is_venv(root / rel):
            return True
        return p.name in BUILD_DIRS and any((root / p.parent / f).is_file() for f in PROJECT_FILES)
    return p.suffix == ".pyc" or rel in version_files or p.name == "_version.py"


def environment_paths(repo: git.Repo) -> list[str]:
    """The untracked paths (a folder ends in `/`) that are the developer's environment (see above)."""
    listing = git.git(repo.root, "ls-files", "-z", "--others", "--exclude-standard", "--directory")
    version_files = _version_files(repo.root)
    out = []
    for entry in sorted(filter(None, listing.split("\0"))):
        folder = entry.endswith("/")
        rel = entry.rstrip("/")
        if rel.split("/", 1)[0] in git.TASK_PATHS:
            continue
        if _generated(repo.root, rel, folder, version_files):
            out.append(entry)
        elif folder:  # a venv inside a wholly untracked folder, which git lists as one entry
            for depth in range(1, _NESTED_VENV_DEPTH + 1):
                out += sorted(
                    p.relative_to(repo.root).as_posix() + "/"
                    for p in (repo.root / rel).glob("/".join(["*"] * depth))
                    if p.is_dir() and is_venv(p)
                )
    return out

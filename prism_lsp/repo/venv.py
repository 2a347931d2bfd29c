"""The repository's own venv, found by reading its files: nothing of it is ever run on the host.

A repository is untrusted, and so is the venv in its work tree (it may be committed, a
`bin/python` that is a shell script). So `find_venv` never starts that Python: the version comes
from `pyvenv.cfg`, pytest's from the `METADATA` of its `*.dist-info` among the site-packages the
venv would see (its own, the folders its `.pth` files name, and with
`include-system-site-packages` its base installation's). The interpreter first starts inside the
sandbox, as candidates run, where the runner reports what it really has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

VENV_NAMES = (".venv", "venv", "env")
_MAX_PTH_FILES = 200  # a venv holds a handful; a folder of thousands is not read to the end
_MAX_SMALL_FILE = 64 * 1024  # pyvenv.cfg, a .pth file, a METADATA header: small text
_DIST_INFO = re.compile(r"^pytest-([0-9][^-]*)\.dist-info$")


@dataclass(frozen=True)
class Venv:
    python: Path | None
    note: str  # what was found, for the author


def _small_text(path: Path) -> str:
    try:
        if path.is_file() and path.stat().st_size <= _MAX_SMALL_FILE:
            return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    return ""


def _cfg(folder: Path) -> dict[str, str]:
    """`pyvenv.cfg`'s `key = value` lines."""
    out = {}
    for line in _small_text(folder / "pyvenv.cfg").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip().lower()] = value.strip()
    return out


def _site_dirs(prefix: Path) -> list[Path]:
    return sorted(
        d
        for pattern in (
            "lib/python3*/site-packages",
            "lib64/python3*/site-packages",
            "lib/python3*/dist-packages",
            "local/lib/python3*/dist-packages",
        )
        for d in prefix.glob(pattern)
        if d.is_dir()
    )


def _pth_dirs(site: Path) -> list[Path]:
    """Folders the `.pth` files of `site` add to `sys.path` (their path lines; `import` lines are code, not read)."""
    out = []
    for pth in sorted(site.glob("*.pth"))[:_MAX_PTH_FILES]:
        for line in _small_text(pth).splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "import ", "import\t")):
                folder = Path(line) if Path(line).is_absolute() else site / line
                if folder.is_dir():
                    out.append(folder)
    return out


def _pytest_version(folders: list[Path]) -> str | None:
    for folder in folders:
        try:
            names = sorted(p.name for p in folder.glob("pytest-*.dist-info"))
        except OSError:
            continue
        for name in names:
            match = _DIST_INFO.match(name)
            if not match:
                continue
            meta = _small_text(folder / name / "METADATA")
            version = re.search(r"^Version:\s*(\S+)", meta, re.M)
            if (folder / "pytest").is_dir() or (folder / "_pytest").is_dir() or version:
                return version.group(1) if version else match.group(1)
    return None


def find_venv(repo_root: Path) -> Venv:
    """The repository's own venv (`VENV_NAMES` at the root, a `pyvenv.cfg` beside `bin/python`) when
    its files show pytest installed; read, never run."""
    for name in VENV_NAMES:
        folder = repo_root / name
        python = folder / "bin" / "python"
        if not ((folder / "pyvenv.cfg").is_file() and (python.is_file() or python.is_symlink())):
            continue
        cfg = _cfg(folder)
        sites = _site_dirs(folder)
        home = cfg.get("home")
        if cfg.get("include-system-site-packages", "").lower() == "true" and home:
            sites += _site_dirs(Path(home).parent)
        version = _pytest_version([*sites, *(d for s in sites for d in _pth_dirs(s))])
        python_version = cfg.get("version_info") or cfg.get("version") or "?"
        if version is None:
            return Venv(
                None,
                f"venv {name}/ found (Python {python_version}), but no pytest among its packages "
                "(pip install pytest there); using Prism's own Python",
            )
        return Venv(
            python,
            f"venv {name}/ (pytest {version}, Python {python_version}; read from its files, "
            "never run outside the sandbox)",
        )
    return Venv(None, "no venv at the repository root (.venv, venv, env); using Prism's own Python")

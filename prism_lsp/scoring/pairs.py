"""Which (task, suite) pairs to score, in a fixed order, from the command line's specs.

A spec is one of:
- `TASK:SUITE` (a task folder and a suite file);
- a folder of task folders (or one task folder), with `suite_name`: the suite path inside each
  (a glob such as `tests/test_*.py` names every matching file: imported HumanEval tasks name
  their suite after the problem's function);
- a suite file alone (its task is the nearest `prism.toml` above it);
- a pairs file (any other file): `TASK:SUITE` per line, `#` comments and blank lines skipped,
  relative paths taken from the file's folder.

Nothing is loaded here: a pair whose task or suite is missing is still a pair, and
scoring it gives an error row naming what is missing, so one bad pair never stops the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import find_task_root
from prism_lsp.tasks.native import MANIFEST


@dataclass(frozen=True)
class Pair:
    """One suite to judge against one task's panel; `index` is its place in the input order."""

    index: int
    task_dir: Path
    suite_path: Path


def _split(spec: str, base: Path, where: str) -> tuple[Path, Path]:
    task, sep, suite = spec.partition(":")
    if not sep or not task or not suite:
        raise ManifestError(where, "", f"expected TASK:SUITE, got {spec!r}")
    return base / task, base / suite


def _from_pairs_file(path: Path) -> list[tuple[Path, Path]]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            out.append(_split(text, path.parent, f"{path}:{n}"))
    return out


def _from_folder(folder: Path, suite_name: str | None) -> list[tuple[Path, Path]]:
    if not suite_name:
        raise ManifestError(folder, "", "a task folder needs --suite-name (the suite path inside each task)")
    if (folder / MANIFEST).is_file():
        tasks = [folder]
    else:
        # A folder holding something that is not a task is still listed: scoring it says why.
        tasks = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not any(ch in suite_name for ch in "*?["):
        return [(t, t / suite_name) for t in tasks]
    # A task where the glob matches nothing is still a pair: it becomes an error row naming the pattern.
    return [(t, s) for t in tasks for s in (sorted(t.glob(suite_name)) or [t / suite_name])]


def discover_pairs(specs: list[str], suite_name: str | None = None) -> list[Pair]:
    """The pairs the specs name, in order (raises `ManifestError` for a spec that names nothing usable)."""
    found: list[tuple[Path, Path]] = []
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            found += _from_folder(path, suite_name)
        elif path.is_file() and path.suffix != ".py":
            found += _from_pairs_file(path)
        elif ":" in spec and not path.exists():
            found.append(_split(spec, Path(), spec))
        elif path.is_file():
            root = find_task_root(path)
            if root is None:
                raise ManifestError(spec, "", f"no {MANIFEST} above this suite")
            found.append((root, path))
        else:
            raise ManifestError(spec, "", "no such task folder, suite or pairs file")
    return [Pair(i, task, suite) for i, (task, suite) in enumerate(found)]

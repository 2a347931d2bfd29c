"""Importers: turn benchmark task formats into native `prism.toml` task folders.

`import_task(fmt, src, dest, ...)` reads `src` in format `fmt`, writes a native
task folder at `dest` and returns the loaded `Task`. Every problem is a
`TaskImportError` (a `ManifestError`: file, key, problem); `dest` is then untouched.
"""

from __future__ import annotations

import importlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.model.task import Task
from prism_lsp.tasks.importers.common import TaskImportError, TaskSpec, write_native


@dataclass(frozen=True)
class Format:
    """One task format `prism import` reads. Adding a format is one entry of `REGISTRY` (and its
    reader module): the command line's choices, `--all` and the error messages derive from it."""

    reader: str  # `module:function` in this package, imported on first use
    options: tuple[str, ...]  # which of `read_spec`'s keyword options the reader takes
    many: str | None = None  # one file holding many tasks: the field that names each (`--all`)
    folder: str | None = None  # a task is a folder holding this file: `--all` reads a dataset folder of them
    listed: bool = True  # False: another name of a listed format (accepted, not offered)


_FOLDER_OPTIONS = ("patch_set", "suite", "test_command", "use_docker")
REGISTRY: dict[str, Format] = {
    "terminal-bench": Format("terminal_bench:read_terminal_bench", _FOLDER_OPTIONS, folder="task.yaml"),
    "harbor": Format("harbor:read_harbor", _FOLDER_OPTIONS, folder="task.toml"),
    "swe-bench": Format(
        "swe_bench:read_swe_bench", ("repo_path", "instance", "candidates", "workdir"), many="instance_id"
    ),
    "humaneval": Format("humaneval:read_humaneval", ("instance", "candidates"), many="task_id"),
    # SWT-Bench's rows are SWE-bench's (its own tests, the same fields).
    "swt-bench": Format(
        "swe_bench:read_swe_bench", ("repo_path", "instance", "candidates", "workdir"), many="instance_id", listed=False
    ),
}
FORMATS = tuple(name for name, f in REGISTRY.items() if f.listed)
# Formats whose source is one file holding many tasks, and the field that names each.
MANY = {name: f.many for name, f in REGISTRY.items() if f.many}
# Formats whose task is a folder, and the file that marks one: with --all, SRC is a dataset folder of them.
FOLDERS = {name: f.folder for name, f in REGISTRY.items() if f.folder}


def read_spec(
    fmt: str,
    src: Path,
    *,
    workdir: Path,
    patch_set: Path | None = None,
    instance: str | None = None,
    repo_path: Path | None = None,
    candidates: Path | None = None,
    suite: str | None = None,
    test_command: str | None = None,
    use_docker: bool = True,
) -> TaskSpec:
    """The `TaskSpec` of `src` read as `fmt` (one of `REGISTRY`); each reader gets the options it takes."""
    entry = REGISTRY.get(fmt)
    if entry is None:
        raise TaskImportError(src, "format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    given = {
        "workdir": workdir,
        "patch_set": patch_set,
        "instance": instance,
        "repo_path": repo_path,
        "candidates": candidates,
        "suite": suite,
        "test_command": test_command,
        "use_docker": use_docker,
    }
    module, function = entry.reader.split(":")
    read = getattr(importlib.import_module(f"{__name__}.{module}"), function)
    spec: TaskSpec = read(src, **{name: given[name] for name in entry.options})
    return spec


def import_task(fmt: str, src: Path, dest: Path, **options) -> Task:
    """Import `src` (format `fmt`) as a native task folder at `dest`; return the loaded task.

    `options`: patch_set, instance, repo_path, candidates, suite, test_command, use_docker, image.
    """
    image = options.pop("image", None)
    if image:  # the image replaces the task's own environment, which then need not exist (or be buildable)
        options["use_docker"] = False
    with tempfile.TemporaryDirectory(prefix="prism-import-") as work:
        spec = read_spec(fmt, Path(src), workdir=Path(work), **options)
        if image:
            spec.image, spec.dockerfile = image, None
        return write_native(spec, Path(dest))


def import_all(fmt: str, src: Path, dest: Path, **options) -> tuple[list[Task], list[TaskImportError]]:
    """Import every task of a many-task source (`MANY`) into `dest/<task id>`, one folder each.

    A task that cannot be imported is returned as its error, the others are still written;
    `dest` may exist (a rerun adds what is missing: existing non-empty task folders are errors).
    """
    from prism_lsp.tasks.importers.common import slug
    from prism_lsp.tasks.importers.jsonl import read_rows

    if fmt in FOLDERS:
        return _import_folders(fmt, Path(src), Path(dest), **options)
    if fmt not in MANY:
        raise TaskImportError(
            src,
            "--all",
            f"--all is for {', '.join(MANY)} files holding many tasks and {', '.join(FOLDERS)} dataset folders",
        )
    if options.pop("instance", None):
        raise TaskImportError(src, "--all", "--all imports every task; leave --instance out")
    key = MANY[fmt]
    ids = [row.get(key) for _, row in read_rows(Path(src))]
    tasks, errors = [], []
    for n, task_id in enumerate(ids, 1):
        if not isinstance(task_id, str) or not task_id.strip():
            errors.append(TaskImportError(f"{src}:{n}", key, "missing required field (a non-empty string)"))
            continue
        try:
            tasks.append(import_task(fmt, src, Path(dest) / slug(task_id), instance=task_id, **options))
        except TaskImportError as exc:
            errors.append(exc)
    return tasks, errors


def _import_folders(fmt: str, src: Path, dest: Path, **options) -> tuple[list[Task], list[TaskImportError]]:
    """Every task folder directly under the dataset folder `src` (a folder holding `FOLDERS[fmt]`), each
    with its own patch set found as for one task, into `dest/<folder name>`."""
    if options.get("patch_set"):
        raise TaskImportError(
            src,
            "--all",
            "--patch-set names one task's panel; with --all each task's patch set is found beside or inside its folder",
        )
    if not src.is_dir():
        raise TaskImportError(src, "--all", f"expected a folder of {fmt} task folders")
    folders = sorted(p for p in src.iterdir() if p.is_dir() and not p.is_symlink() and (p / FOLDERS[fmt]).is_file())
    if not folders:
        raise TaskImportError(src, "--all", f"no {fmt} task folder (one holding {FOLDERS[fmt]}) in this folder")
    tasks, errors = [], []
    for folder in folders:
        try:
            tasks.append(import_task(fmt, folder, dest / folder.name, **options))
        except TaskImportError as exc:
            errors.append(exc)
    return tasks, errors


__all__ = [
    "FOLDERS",
    "FORMATS",
    "MANY",
    "REGISTRY",
    "Format",
    "TaskImportError",
    "import_all",
    "import_task",
    "read_spec",
]

"""Importers: turn benchmark task formats into native `prism.toml` task folders.

`import_task(fmt, src, dest, ...)` reads `src` in format `fmt`, writes a native
task folder at `dest` and returns the loaded `Task`. Every problem is a
`TaskImportError` (a `ManifestError`: file, key, problem); `dest` is then untouched.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from prism_lsp.model.task import Task
from prism_lsp.tasks.importers.common import TaskImportError, TaskSpec, write_native

FORMATS = ("terminal-bench", "harbor", "swe-bench", "humaneval")
# Formats whose source is one file holding many tasks, and the field that names each.
MANY = {"humaneval": "task_id", "swe-bench": "instance_id", "swt-bench": "instance_id"}
# Formats whose task is a folder, and the file that marks one: with --all, SRC is a dataset folder of them.
FOLDERS = {"terminal-bench": "task.yaml", "harbor": "task.toml"}


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
    """The `TaskSpec` of `src` read as `fmt` (one of `FORMATS`)."""
    if fmt == "terminal-bench":
        from prism_lsp.tasks.importers.terminal_bench import read_terminal_bench

        return read_terminal_bench(
            src, patch_set=patch_set, suite=suite, test_command=test_command, use_docker=use_docker
        )
    if fmt == "harbor":
        from prism_lsp.tasks.importers.harbor import read_harbor

        return read_harbor(src, patch_set=patch_set, suite=suite, test_command=test_command, use_docker=use_docker)
    if fmt in ("swe-bench", "swt-bench"):
        from prism_lsp.tasks.importers.swe_bench import read_swe_bench

        return read_swe_bench(src, repo_path=repo_path, instance=instance, candidates=candidates, workdir=workdir)
    if fmt == "humaneval":
        from prism_lsp.tasks.importers.humaneval import read_humaneval

        return read_humaneval(src, instance=instance, candidates=candidates)
    raise TaskImportError(src, "format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


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


__all__ = ["FOLDERS", "FORMATS", "MANY", "TaskImportError", "import_all", "import_task", "read_spec"]

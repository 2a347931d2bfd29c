"""Loaders that turn a folder into a `Task`: the native manifest and importers."""

from prism_lsp.tasks.native import find_task_root, load_task

__all__ = ["find_task_root", "load_task"]

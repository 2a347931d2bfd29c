"""Records: the one shape every report format reads, from `prism score`, `prism run` or `prism gate`.

A record is one (task, suite) pair: `task`, `suite` (its path in the task), `suite_file` (where it is
on disk), `status` ("ok" or "error"), `error`, and `report` (the panel report as JSON data, or None).
`scoring.job` makes them for `prism score`; `record_of` makes one from a finished panel report.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from prism_lsp.model.report import SCHEMA_VERSION, PanelReport

__all__ = ["SCHEMA_VERSION", "error_of", "record_of", "source_root"]


def record_of(report: PanelReport, suite_file: Path) -> dict:
    """The record of one judged suite."""
    return {
        "task": report.task,
        "suite": report.suite,
        "suite_file": str(suite_file),
        "status": "ok",
        "error": None,
        "report": report.model_dump(mode="json"),
    }


def error_of(task: str, suite: str, suite_file: Path, message: str) -> dict:
    """The record of a suite that could not be judged: an error row, never a verdict."""
    return {
        "task": task,
        "suite": suite,
        "suite_file": str(suite_file),
        "status": "error",
        "error": message,
        "report": None,
    }


def source_root(near: Path) -> Path:
    """What report paths are relative to: the git work tree holding `near` (the checkout code
    scanning knows), else `near` itself."""
    near = Path(near).resolve()
    folder = near if near.is_dir() else near.parent
    try:
        proc = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return folder
    top = proc.stdout.strip()
    return Path(top).resolve() if proc.returncode == 0 and top else folder

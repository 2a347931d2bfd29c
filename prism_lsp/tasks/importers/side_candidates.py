"""Extra panel entries from a side file (`--candidates FILE`, JSON lines or a JSON array).

Each row: `id` (or `model_name_or_path`), `label` ("valid" | "invalid"), optional `note`,
and the implementation as one of `patch` / `model_patch` (a unified diff against the
initial state), `completion` (HumanEval: the body appended to the prompt) or `code`
(the whole solution file). `reference: true` is an error: the instance's own solution
is the reference, and a task has exactly one. Rows with an `instance_id` / `task_id` are kept only for
that instance, so one side file can serve a whole benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prism_lsp.tasks.importers.common import CandidateSpec, TaskImportError, slug
from prism_lsp.tasks.importers.jsonl import read_rows


def read_side_candidates(
    path: Path, instance: str, *, files_for: Callable[[dict, str], dict[str, str | bytes]] | None = None
) -> list[CandidateSpec]:
    """The side file's candidates for `instance`.

    `files_for(row, where)` turns a `completion`/`code` row into overlay files (HumanEval);
    without it only diffs are accepted.
    """
    out = []
    for n, row in read_rows(path):
        owner = row.get("instance_id", row.get("task_id"))
        if owner is not None and owner != instance:
            continue
        where = f"{path}:{n}"
        raw_id = row.get("id") or row.get("model_name_or_path")
        if not isinstance(raw_id, str) or not raw_id:
            raise TaskImportError(where, "id", "missing required field (the candidate id)")
        label = row.get("label")
        if label not in ("valid", "invalid"):
            raise TaskImportError(where, "label", f'expected "valid" or "invalid", got {label!r}')
        reference = row.get("reference", False)
        if not isinstance(reference, bool):
            raise TaskImportError(where, "reference", f"expected true or false, got {reference!r}")
        if reference:  # the instance brings its own reference; a second one must not be silently dropped
            raise TaskImportError(
                where,
                "reference",
                f"two references: {instance}'s own solution is the reference; "
                "a side-file candidate can only be valid or invalid",
            )
        cand = CandidateSpec(id=slug(raw_id), label=label, note=str(row.get("note", "")), origin=(where, "patch"))
        diff = row.get("patch", row.get("model_patch"))
        if isinstance(diff, str) and diff.strip():
            cand.patch = diff if diff.endswith("\n") else diff + "\n"
        elif files_for is not None and ("completion" in row or "code" in row):
            cand.files = files_for(row, where)
            cand.origin = (where, "completion" if "completion" in row else "code")
        else:
            wanted = "`patch`, `completion` or `code`" if files_for else "`patch` (a unified diff)"
            raise TaskImportError(where, "patch", f"missing the implementation: expected {wanted}")
        out.append(cand)
    return out

"""SWE-bench / SWT-bench instances (JSON lines) over a local clone of the repository.

Fields used: `instance_id`, `repo`, `base_commit`, `patch` (the reference), `test_patch`
(its test files are the suites), `problem_statement` (the statement), `FAIL_TO_PASS`
and `PASS_TO_PASS` (kept in the statement's footer). The initial state is the clone's
tree at `base_commit` (`git archive`; no network, nothing in the clone changes). Each
file the test patch touches becomes a suite at its own path, so `prism run DEST
DEST/<path>` runs it where the repository expects it. Extra candidates: `--candidates`.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

from prism_lsp.materialize.apply import ApplyError, apply_patch
from prism_lsp.tasks.importers.common import CandidateSpec, TaskImportError, TaskSpec, slug
from prism_lsp.tasks.importers.jsonl import pick, read_rows, require_str
from prism_lsp.tasks.importers.side_candidates import read_side_candidates

FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=300)


def export_commit(repo: Path, commit: str, dest: Path, where: str) -> None:
    """Extract the tree of `commit` from the clone `repo` into `dest` (`TaskImportError` if absent)."""
    if not (repo / ".git").exists() and _git(repo, "rev-parse", "--git-dir").returncode != 0:
        raise TaskImportError(repo, "--repo-path", "not a git repository; expected a local clone of the instance's repo")
    if _git(repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise TaskImportError(where, "base_commit",
                              f"commit {commit} is not in the clone at {repo} (fetch it there; Prism works offline)")
    proc = _git(repo, "archive", "--format=tar", commit)
    if proc.returncode != 0:
        raise TaskImportError(where, "base_commit", f"git archive failed: {proc.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        tar.extractall(dest, filter="data")


def _touched(diff: str) -> list[str]:
    paths = []
    for line in diff.splitlines():
        m = re.match(r"^\+\+\+ (?:b/)?(.+?)\s*$", line)
        if m and m.group(1) != "/dev/null":
            paths.append(m.group(1))
    return paths


def _suites(initial: Path, test_patch: str, where: str) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="prism-swe-") as tmp:
        diff = Path(tmp) / "test.diff"
        diff.write_text(test_patch if test_patch.endswith("\n") else test_patch + "\n")
        tree = Path(tmp) / "tree"
        subprocess.run(["cp", "-a", f"{initial}/.", str(tree)], check=True)
        try:
            apply_patch(diff, tree)
        except ApplyError as exc:
            raise TaskImportError(where, "test_patch", f"the test patch does not apply at base_commit: {exc}") from None
        return {rel: (tree / rel).read_text(encoding="utf-8") for rel in _touched(test_patch) if (tree / rel).is_file()}


def _fail_to_pass(row: dict) -> list[str]:
    value = row.get("FAIL_TO_PASS", [])
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [value]
    return [str(v) for v in value] if isinstance(value, list) else []


def read_swe_bench(src: Path, *, repo_path: Path | None, instance: str | None = None,
                   candidates: Path | None = None, workdir: Path) -> TaskSpec:
    """Read one instance into a `TaskSpec`; its initial state is extracted into `workdir`.

    `workdir` must outlive the spec until `write_native` has copied it.
    """
    src = Path(src).resolve()
    where, row = pick(read_rows(src), "instance_id", instance, src)
    for key in FIELDS:
        require_str(row, key, where)
    if repo_path is None:
        raise TaskImportError(where, "repo", f"pass --repo-path, a local clone of {row['repo']} (no network is used)")
    initial = workdir / "initial"
    initial.mkdir(parents=True)
    export_commit(Path(repo_path).resolve(), row["base_commit"], initial, where)
    suites = _suites(initial, row["test_patch"], where)
    if not suites:
        raise TaskImportError(where, "test_patch", "the test patch adds or changes no file")
    ref = CandidateSpec(id="reference", label="valid", reference=True, origin=(where, "patch"),
                        patch=row["patch"] if row["patch"].endswith("\n") else row["patch"] + "\n",
                        note=f"the upstream fix of {row['instance_id']}")
    panel = [ref] + (read_side_candidates(candidates, row["instance_id"]) if candidates else [])
    footer = ""
    if _fail_to_pass(row):
        footer = "\n\nFAIL_TO_PASS: " + ", ".join(_fail_to_pass(row))
    return TaskSpec(id=slug(row["instance_id"]), source=src, statement=row["problem_statement"].strip() + footer,
                    initial_dir=initial, candidates=panel, suites=suites)

"""SWE-bench / SWT-bench instances (JSON lines) over a local clone of the repository.

Fields used: `instance_id`, `repo`, `base_commit`, `patch` (the reference), `test_patch`,
`problem_statement` (the statement), `FAIL_TO_PASS` and `PASS_TO_PASS` (lists of test
ids, or those lists JSON-encoded as SWE-bench ships them; kept in the statement's footer).

The initial state is the clone's tree at `base_commit` (`git archive`; no network,
nothing in the clone changes) with the test patch applied, except for the suites: what
the test patch adds besides them (fixture data, `conftest.py`, helpers) is then part of
every candidate's tree, as it is when SWE-bench evaluates. The suites are the test
modules (pytest's naming) the test patch touches, narrowed to the files `FAIL_TO_PASS`
names when it names any; each is written at its own path, so `prism run DEST
DEST/<path>` runs it where the repository expects it, over the base version of that
file. Extra candidates: `--candidates`.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from prism_lsp.materialize.apply import ApplyError, apply_patch
from prism_lsp.tasks.importers.common import CandidateSpec, TaskImportError, TaskSpec, slug
from prism_lsp.tasks.importers.jsonl import pick, read_rows, require_str
from prism_lsp.tasks.importers.safe_tar import UnsafeMember, extract_all
from prism_lsp.tasks.importers.side_candidates import read_side_candidates
from prism_lsp.tasks.importers.tree_files import decode_text
from prism_lsp.tasks.suites import matches, python_files

FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=300)


def export_commit(repo: Path, commit: str, dest: Path, where: str) -> None:
    """Extract the tree of `commit` from the clone `repo` into `dest` (`TaskImportError` if absent)."""
    if not (repo / ".git").exists() and _git(repo, "rev-parse", "--git-dir").returncode != 0:
        raise TaskImportError(
            repo, "--repo-path", "not a git repository; expected a local clone of the instance's repo"
        )
    if _git(repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise TaskImportError(
            where, "base_commit", f"commit {commit} is not in the clone at {repo} (fetch it there; Prism works offline)"
        )
    proc = _git(repo, "archive", "--format=tar", commit)
    if proc.returncode != 0:
        raise TaskImportError(
            where, "base_commit", f"git archive failed: {proc.stderr.decode(errors='replace').strip()}"
        )
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        try:
            # Relative symlinks that stay inside the tree are kept; everything else is refused.
            extract_all(tar, dest)
        except UnsafeMember as exc:
            raise TaskImportError(
                where,
                "base_commit",
                f"{exc.member.name!r} at {commit[:12]} is {exc.what}; refused: "
                "a program tree may only link inside itself",
            ) from None


def _touched(diff: str) -> list[str]:
    """The paths a diff leaves in place (its `+++` side), in order."""
    paths = []
    for line in diff.splitlines():
        m = re.match(r"^\+\+\+ (?:b/)?(.+?)\s*$", line)
        if m and m.group(1) != "/dev/null":
            paths.append(m.group(1))
    return paths


def test_lists(row: dict, where: str) -> dict[str, list[str]]:
    """`FAIL_TO_PASS` and `PASS_TO_PASS` as lists of strings (absent: empty); a JSON-encoded list is decoded."""
    out = {}
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        value = row.get(key, [])
        if isinstance(value, str):
            try:
                value = json.loads(value) if value.strip() else []
            except (ValueError, RecursionError):
                raise TaskImportError(
                    where,
                    key,
                    "expected a list of test ids, or that list JSON-encoded; "
                    f"got a string that is not JSON: {value[:60]!r}",
                ) from None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TaskImportError(where, key, f"expected a list of test ids (strings), got {value!r:.80}")
        out[key] = value
    return out


def _apply_test_patch(initial: Path, test_patch: str, where: str) -> dict[str, bytes | None]:
    """Apply the test patch to `initial`; return the base version (None: absent) of each file it leaves."""
    touched = _touched(test_patch)
    before = {rel: (initial / rel).read_bytes() if (initial / rel).is_file() else None for rel in touched}
    with tempfile.TemporaryDirectory(prefix="prism-swe-") as tmp:
        diff = Path(tmp) / "test.diff"
        diff.write_bytes((test_patch if test_patch.endswith("\n") else test_patch + "\n").encode("utf-8"))
        try:
            apply_patch(diff, initial)
        except ApplyError as exc:
            raise TaskImportError(where, "test_patch", f"the test patch does not apply at base_commit: {exc}") from None
    return before


def _pick_suites(initial: Path, touched: list[str], fail_to_pass: list[str], where: str) -> list[str]:
    """The test modules among `touched`: those `FAIL_TO_PASS` names (`path::test`) when any, else all."""
    patterns = python_files(initial)
    modules = [rel for rel in touched if (initial / rel).is_file() and matches(PurePosixPath(rel), patterns)]
    if not modules:
        raise TaskImportError(
            where,
            "test_patch",
            f"the test patch adds or changes no test module (pytest collects "
            f"{' or '.join(patterns)}); it touches {', '.join(touched) or 'nothing'}",
        )
    named = {test.split("::", 1)[0] for test in fail_to_pass if "::" in test}
    return [rel for rel in modules if rel in named] or modules


def _suites(initial: Path, test_patch: str, fail_to_pass: list[str], where: str) -> dict[str, str]:
    """Apply the test patch to `initial`, take the suites out of it (their base version stays); their text."""
    before = _apply_test_patch(initial, test_patch, where)
    suites = {}
    for rel in _pick_suites(initial, list(before), fail_to_pass, where):
        path = initial / rel
        suites[rel] = decode_text(path.read_bytes(), where, f"test module {rel!r} of the test patch")
        old = before[rel]
        if old is None:
            path.unlink()
        else:
            path.write_bytes(old)
    return suites


def read_swe_bench(
    src: Path, *, repo_path: Path | None, instance: str | None = None, candidates: Path | None = None, workdir: Path
) -> TaskSpec:
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
    lists = test_lists(row, where)
    export_commit(Path(repo_path).resolve(), row["base_commit"], initial, where)
    suites = _suites(initial, row["test_patch"], lists["FAIL_TO_PASS"], where)
    ref = CandidateSpec(
        id="reference",
        label="valid",
        reference=True,
        origin=(where, "patch"),
        patch=row["patch"] if row["patch"].endswith("\n") else row["patch"] + "\n",
        note=f"the upstream fix of {row['instance_id']}",
    )
    panel = [ref] + (read_side_candidates(candidates, row["instance_id"]) if candidates else [])
    footer = "".join(f"\n\n{key}: {', '.join(tests)}" for key, tests in lists.items() if tests)
    return TaskSpec(
        id=slug(row["instance_id"]),
        source=src,
        statement=row["problem_statement"].strip() + footer,
        initial_dir=initial,
        candidates=panel,
        suites=suites,
    )

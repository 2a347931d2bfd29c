"""`prism init`: a task from a bug fix in a git repository.

The fix is the working tree against `HEAD` (untracked files included), or `--base REV --fix REV`.
The task is `prism.toml` at the repository root plus `.prism/` (the initial state, the reference
diff, hand-made candidates), both listed in `.git/info/exclude`; the suites are the repository's
own test files, judged where they are. Everything is checked in a staging folder inside the git
folder first, so an error leaves the repository, and any task already there, untouched.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.materialize.apply import ApplyError, apply_patch, copy_tree
from prism_lsp.materialize.links import UnsafeLink, write_target
from prism_lsp.repo import git
from prism_lsp.repo.environment import environment_paths
from prism_lsp.repo.errors import InitError
from prism_lsp.repo.layout import copy_generated, generated_files, import_roots
from prism_lsp.repo.split import Split, split_fix
from prism_lsp.repo.venv import find_venv
from prism_lsp.repo.writer import Manifest, kept_candidates, publish, write_manifest
from prism_lsp.tasks.importers.common import slug
from prism_lsp.tasks.pytest_config import nearest_config
from prism_lsp.tasks.suites import python_files

INITIAL = ".prism/initial"


@dataclass
class Fix:
    """Which change the task is made of: `fix` is a commit, or a tree object of the working tree."""

    base: str
    fix: str
    describe: str  # "working tree" or the fix commit's short id
    statement: str


@dataclass
class InitResult:
    root: Path
    suites: list[str]
    support: list[str]
    reference: list[str]
    generated: list[str]
    python: str | None
    venv_note: str
    pythonpath: list[str]
    kept: list[str]
    updated: bool
    patterns: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


def _subject(repo: git.Repo, commit: str) -> str:
    return git.git(repo.root, "log", "-1", "--format=%B", commit).strip()


def resolve_fix(repo: git.Repo, base: str | None, fix: str | None, environment: Sequence[str] = ()) -> Fix:
    """The fix to make the task of; `environment`: untracked paths never part of it (`environment.py`)."""
    if fix is not None:
        fix_commit = git.commit_of(repo, fix, "--fix")
        if base is None:
            parents = git.parents(repo, fix_commit)
            if len(parents) > 1:
                raise InitError(
                    f"--fix {fix} is a merge commit ({len(parents)} parents): name the side to "
                    f"diff against with --base (e.g. --base {fix}^1)"
                )
            if not parents:
                raise InitError(
                    f"--fix {fix} is the repository's first commit: there is no state before it; pass --base"
                )
            base = parents[0]
        dirty = git.dirty_paths(repo, environment)
        if dirty:
            shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
            raise InitError(
                f"the working tree has uncommitted changes ({shown}); with --fix the suites are "
                "read from the working tree, so commit or stash them first, or drop --fix to "
                "make the task from the working tree"
            )
        base_commit = git.commit_of(repo, base, "--base")
        return Fix(base_commit, fix_commit, fix_commit[:12], _subject(repo, fix_commit))
    if not git.git(repo.root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
        raise InitError(f"{repo.root} has no commit yet: commit the code before the fix, then run prism init")
    base_commit = git.commit_of(repo, base or "HEAD", "--base")
    return Fix(
        base_commit,
        git.working_tree(repo, environment),
        "working tree",
        f"The fix in the working tree, against {base_commit[:12]}: {_subject(repo, base_commit).splitlines()[0]}",
    )


def _check_submodules(repo: git.Repo, fix: Fix) -> None:
    for treeish, what in ((fix.base, "the base"), (fix.fix, "the fix")):
        subs = git.submodules(repo, treeish)
        if subs:
            raise InitError(
                f"{what} holds a submodule ({', '.join(subs[:3])}); Prism builds each program from "
                "this repository's own objects and cannot include a submodule's files"
            )


def _check_suites_match(repo: git.Repo, fix: Fix, suites: list[str]) -> None:
    """With --fix REV the suites are read from the working tree: it must hold REV's version."""
    for rel in suites:
        path = repo.root / rel
        if not path.is_file() or path.read_bytes() != git.blob(repo, fix.fix, rel):
            raise InitError(
                f"suite {rel} in the working tree is not its version at --fix {fix.describe}; "
                f"check out {fix.describe} first (the suites are judged where they are)"
            )


def _apply_support(repo: git.Repo, fix: Fix, split: Split, initial: Path) -> None:
    """The fix's other test files (conftest, fixtures, data) join the initial state."""
    for change in split.support:
        for rel in (change.old, change.path if change.status == "D" else None):
            if rel and (initial / rel).is_file():
                try:
                    write_target(initial, rel)  # removes it, never through a link
                except UnsafeLink as exc:
                    raise InitError(str(exc)) from None
    present = [c.path for c in split.support if c.status != "D"]
    if present:
        git.export(repo, fix.fix, initial, present)


def _check_applies(initial: Path, patch: Path, what: str, staging: Path) -> None:
    tree = staging / ".apply-check"  # beside the staged task, never part of it
    copy_tree(initial, tree)
    try:
        apply_patch(patch, tree)
    except ApplyError as exc:
        raise InitError(f"{what} does not apply to the new initial state: {exc}") from None
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def init_task(
    path: Path, *, base: str | None = None, fix: str | None = None, statement: str | None = None
) -> InitResult:
    """Make (or update) the task of the fix; raise `InitError` with nothing written on any problem."""
    repo = git.open_repo(path)
    environment = environment_paths(repo)
    chosen = resolve_fix(repo, base, fix, environment)
    _check_submodules(repo, chosen)
    changed = [c for c in git.changes(repo, chosen.base, chosen.fix) if c.path.split("/", 1)[0] not in git.TASK_PATHS]
    if not changed:
        raise InitError(f"no change between {chosen.base[:12]} and the {chosen.describe}: nothing to make a task from")
    staging = Path(tempfile.mkdtemp(prefix="prism-init-", dir=repo.git_dir))
    try:
        initial = staging / INITIAL
        initial.mkdir(parents=True)
        git.export(repo, chosen.base, initial)
        patterns = python_files(initial)
        split = split_fix(changed, lambda rel: nearest_config(initial, rel).python_files)
        if not split.reference:
            raise InitError(
                "the fix changes only test files ("
                + ", ".join(c.path for c in changed[:3])
                + "): there is no change of the code to take as the reference"
            )
        if fix is not None:
            _check_suites_match(repo, chosen, split.suites)
        _apply_support(repo, chosen, split, initial)
        touched = {p for c in changed for p in (c.path, c.old) if p}
        generated = copy_generated(
            repo.root,
            [
                rel
                for rel in generated_files(
                    git.ignored_files(repo) + [p for p in environment if not p.endswith("/")],
                    git.tracked_files(repo, chosen.base),
                )
                if rel not in touched
            ],
            initial,
        )
        # git's own diff between the two trees, of paths nothing else in the initial state touched:
        # it applies by construction, so no copy of the whole tree is made to check it.
        reference = staging / ".prism" / "candidates" / "reference.diff"
        reference.parent.mkdir(parents=True)
        reference.write_bytes(git.diff(repo, chosen.base, chosen.fix, split.reference_paths))
        kept, old_statement = kept_candidates(repo.root, staging)
        for cand in kept:
            if cand["patch"]:  # an overlay applies to any initial state
                _check_applies(
                    initial,
                    staging / cand["patch"],
                    f"candidate {cand['id']!r} (kept from the task already there)",
                    staging,
                )
        venv = find_venv(repo.root)
        roots = import_roots(initial, split.suites)
        manifest = Manifest(
            id=slug(repo.root.name),
            statement=statement or old_statement or chosen.statement,
            initial=INITIAL,
            python=str(venv.python) if venv.python else None,
            pythonpath=roots,
            origin=f"base {chosen.base[:12]}, fix {chosen.describe}",
            kept=kept,
            statement_from_git=not (statement or old_statement),
        )
        write_manifest(staging, manifest)
        updated = publish(repo, staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    notes = []
    if not split.suites:
        notes.append(
            "no suite found: the fix adds or changes no test module (pytest collects "
            f"{' or '.join(patterns)}); write one, then `prism run` it"
        )
    return InitResult(
        root=repo.root,
        suites=split.suites,
        support=[c.path for c in split.support],
        reference=[f"{c.old} -> {c.path}" if c.old else c.path for c in split.reference],
        generated=generated,
        python=manifest.python,
        venv_note=venv.note,
        pythonpath=roots,
        kept=[c["id"] for c in kept],
        updated=updated,
        patterns=patterns,
        notes=notes,
    )

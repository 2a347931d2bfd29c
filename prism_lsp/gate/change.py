"""The task of a change, with a panel to judge it by: `prism init`'s task, plus mutants when it has none.

The task is written where `prism init` writes it (`prism.toml` and `.prism/` at the repository's
root, both in `.git/info/exclude`), so the repository is not dirtied. Mutants a previous gate (or
`prism panel build`) generated belong to the change they were made for: they are dropped before
the task is remade, then built again on the lines the change touched, unless the author's own
invalid candidates make the panel.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.task import Task
from prism_lsp.repo import git
from prism_lsp.repo.errors import InitError
from prism_lsp.repo.init import InitResult, init_task
from prism_lsp.repo.writer import made_by_init
from prism_lsp.tasks import load_task
from prism_lsp.tasks.native import MANIFEST


@dataclass
class Change:
    task: Task
    suites: list[Path]
    base: str
    fix: str
    init: InitResult
    mutants_built: int | None = None  # None: the panel had invalid candidates of the author's
    notes: list[str] = field(default_factory=list)


def resolve_base(repo: git.Repo, base: str | None, fix: str | None) -> str | None:
    """`base` as the point the change branched from: the merge base of `base` and the fix (or
    HEAD), so `--base origin/main` on a branch judges the branch's own changes only."""
    if base is None:
        return None
    base_commit = git.commit_of(repo, base, "--base")
    tip = git.commit_of(repo, fix or "HEAD", "--fix" if fix else "HEAD")
    merged = git.git(repo.root, "merge-base", base_commit, tip, check=False).strip()
    if not merged:
        raise InitError(
            f"--base {base} and {fix or 'HEAD'} have no common ancestor: name the commit the change starts from"
        )
    return merged


def _drop_generated_mutants(root: Path) -> None:
    manifest = root / MANIFEST
    if not made_by_init(manifest):
        return
    try:
        task = load_task(root)
    except ManifestError:
        return  # prism init reports what is wrong with it
    if any(c.origin == "mutant" for c in task.candidates):
        from prism_lsp.panel.write import replace_mutants

        replace_mutants(task, [])


def prepare(
    path: Path,
    session: EngineSession,
    *,
    base: str | None,
    fix: str | None,
    sandbox: str | None = None,
    timeout_s: float | None = None,
    seed: int = 0,
    max_invalid: int = 5,
    mutate: str = "changed",
) -> Change:
    """Make the task of the change and its panel; `InitError` (nothing judged) when there is no change."""
    repo = git.open_repo(path)
    merged = resolve_base(repo, base, fix)
    _drop_generated_mutants(repo.root)
    result = init_task(repo.root, base=merged, fix=fix)
    task = load_task(result.root)
    change = Change(
        task=task,
        suites=[result.root / rel for rel in result.suites],
        base=merged or "HEAD",
        fix=fix or "working tree",
        init=result,
        notes=list(result.notes),
    )
    if any(not c.valid for c in task.candidates) or not change.suites:
        return change
    import importlib.util

    if importlib.util.find_spec("libcst") is None:
        change.notes.append(f"no invalid candidate, and mutants need libcst: {sys.executable} -m pip install libcst")
        change.mutants_built = 0
        return change
    from prism_lsp.panel.build import BuildOptions, build_panel, write_panel

    built = build_panel(
        session,
        task,
        BuildOptions(max_invalid=max_invalid, seed=seed, sandbox=sandbox, timeout_s=timeout_s, mutate=mutate),
    )
    change.notes += built.notes
    change.mutants_built = len(built.kept)
    change.task = write_panel(task, built)
    return change

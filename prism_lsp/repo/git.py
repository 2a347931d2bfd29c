"""Reading a git repository: revisions, the fix's tree, the files it changes, trees exported.

Nothing here writes to the work tree, the index or the refs: the working tree's state is
captured as a tree object through a temporary index (`GIT_INDEX_FILE`), which adds only
loose objects to the object store, as `git stash create` would.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.materialize.links import UnsafeLink, check_links, write_target
from prism_lsp.repo.errors import InitError

# Paths of the task `prism init` writes; never part of a fix.
TASK_PATHS = ("prism.toml", ".prism")


def _guarded(repo: Path) -> list[str]:
    """`git -C repo` with every command the repository's own config could make git run switched off:
    `core.fsmonitor` (run by status and add) and each filter driver's clean/smudge/process (run by
    add and status). A repository's `.git/config` comes with a folder that was copied, not cloned;
    it is the repository's, so untrusted. (Diffs pass --no-ext-diff and --no-textconv.)"""
    proc = subprocess.run(
        ["git", "-C", str(repo), "config", "-z", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"],
        capture_output=True,
        timeout=60,
    )
    keys = {entry.split("\n", 1)[0] for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if entry}
    return ["git", "-C", str(repo), "-c", "core.fsmonitor=false", *(a for k in sorted(keys) for a in ("-c", f"{k}="))]


def git(repo: Path, *args: str, env: dict | None = None, check: bool = True) -> str:
    """Run git in `repo`; its stdout as text. A failure is an `InitError` with git's own message."""
    proc = subprocess.run([*_guarded(repo), *args], capture_output=True, timeout=300, env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise InitError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode("utf-8", errors="surrogateescape")


def git_bytes(repo: Path, *args: str) -> bytes:
    proc = subprocess.run([*_guarded(repo), *args], capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise InitError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


@dataclass(frozen=True)
class Repo:
    """A repository's work tree root, git folder and common git folder (a linked worktree's
    `info/exclude` is the main repository's), all absolute."""

    root: Path
    git_dir: Path
    common_dir: Path


def open_repo(path: Path) -> Repo:
    """The repository holding `path`, or an `InitError` saying it is not one."""
    path = Path(path).resolve()
    if not path.is_dir():
        raise InitError(f"{path} is not a folder")
    proc = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"],
        capture_output=True,
        timeout=60,
    )
    if proc.returncode != 0:
        raise InitError(
            f"{path} is not inside a git repository (prism init makes a task from a fix "
            "in a git repository; for a task folder from scratch, use --scaffold)"
        )
    lines = proc.stdout.decode().splitlines()
    if len(lines) < 3 or not lines[0]:
        raise InitError(f"{path} is inside a git folder or a bare repository, not a work tree")
    top, git_dir, common = lines[:3]
    return Repo(Path(top), Path(git_dir), (path / common).resolve() if not Path(common).is_absolute() else Path(common))


def commit_of(repo: Repo, rev: str, option: str) -> str:
    """The commit id `rev` names, or an `InitError` naming the option."""
    proc = subprocess.run(
        ["git", "-C", str(repo.root), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True,
        timeout=60,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise InitError(f"{option} {rev}: no such commit in {repo.root}")
    return proc.stdout.decode().strip()


def parents(repo: Repo, commit: str) -> list[str]:
    return git(repo.root, "rev-list", "--parents", "-n", "1", commit).split()[1:]


def _within(path: str, entries: Sequence[str]) -> bool:
    return any(path == e or (e.endswith("/") and path.startswith(e)) for e in entries)


def dirty_paths(repo: Repo, leave_out: Sequence[str] = ()) -> list[str]:
    """Tracked or untracked (not ignored) paths whose working state differs from HEAD; untracked ones
    in `leave_out` (paths, a folder ending in `/`: the developer's environment) are not counted."""
    entries = iter(git(repo.root, "status", "--porcelain=v1", "-z", "--untracked-files=all").split("\0"))
    paths = []
    for entry in entries:
        if len(entry) > 3 and not (entry.startswith("??") and _within(entry[3:], leave_out)):
            paths.append(entry[3:])
            if entry[0] in "RC":
                next(entries, None)  # a rename's or copy's source path follows as its own entry
    return [p for p in paths if p.split("/", 1)[0] not in TASK_PATHS]


def working_tree(repo: Repo, leave_out: Sequence[str] = ()) -> str:
    """A tree object holding the working tree as `git add -A` would stage it (untracked, not
    ignored files included, but those in `leave_out`); the real index is untouched."""
    with tempfile.TemporaryDirectory(prefix="prism-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if git(repo.root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).strip():
            git(repo.root, "read-tree", "HEAD", env=env)
        # The task's own files are in .git/info/exclude once made; `changes` leaves them out anyway.
        specs = [".", *(f":(exclude,top,literal){p.rstrip('/')}" for p in leave_out)]
        specs_nul = "".join(s + "\0" for s in specs).encode("utf-8", "surrogateescape")
        proc = subprocess.run(
            [*_guarded(repo.root), "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
            input=specs_nul,
            capture_output=True,
            timeout=300,
            env={**os.environ, **env},
        )
        if proc.returncode != 0:
            raise InitError(f"git add failed: {proc.stderr.decode(errors='replace').strip()}")
        return git(repo.root, "write-tree", env=env).strip()


@dataclass(frozen=True)
class Change:
    """One file the fix changes: status A (added), M, D (deleted), R (renamed from `old`), T."""

    status: str
    path: str
    old: str | None = None


def changes(repo: Repo, base: str, fix: str) -> list[Change]:
    """The files `fix` changes against `base`, renames found (`-M`)."""
    out = git(repo.root, "diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", base, fix).split("\0")
    result, i = [], 0
    while i < len(out) - 1:
        status = out[i]
        if status[:1] in ("R", "C"):
            result.append(Change(status[0], out[i + 2], out[i + 1]))
            i += 3
        else:
            result.append(Change(status[0], out[i + 1]))
            i += 2
    return result


def diff(repo: Repo, base: str, fix: str, paths: list[str]) -> bytes:
    """The binary-safe unified diff of `paths` between `base` and `fix` (renames kept)."""
    if not paths:
        return b""
    # Prefixes and paths spelled out: a user's diff.noprefix, diff.mnemonicPrefix or diff.relative
    # would otherwise make a diff that `git apply -p1` in the tree cannot apply.
    return git_bytes(
        repo.root,
        "diff",
        "--binary",
        "-M",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--full-index",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        "--no-relative",
        base,
        fix,
        "--",
        *[f":(literal,top){p}" for p in paths],
    )


def submodules(repo: Repo, treeish: str) -> list[str]:
    """Paths of submodules (gitlinks) in `treeish`."""
    out = git(repo.root, "ls-tree", "-r", "-z", treeish)
    return [entry.split("\t", 1)[1] for entry in out.split("\0") if entry.startswith("160000 ")]


def blob(repo: Repo, treeish: str, path: str) -> bytes:
    return git_bytes(repo.root, "cat-file", "blob", f"{treeish}:{path}")


def export(repo: Repo, treeish: str, dest: Path, paths: list[str] | None = None) -> None:
    """Write `treeish` (or only `paths` of it) into `dest`: git's blobs as they are stored.

    Not `git archive`, which leaves out what `.gitattributes` marks `export-ignore` (often tests/
    or conftest.py) and rewrites `export-subst` files; nor a checkout, whose line-ending and
    filter conversions would make files the diffs (taken between blobs) no longer apply to.
    Nothing is written through a link, and each link must stay inside the finished tree
    (`materialize/links.py`); any other is refused."""
    listing = git(repo.root, "ls-tree", "-r", "-z", "--full-tree", treeish, *(["--", *paths] if paths else []))
    entries = []
    for entry in filter(None, listing.split("\0")):
        meta, rel = entry.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob":
            entries.append((mode, oid, rel))
    proc = subprocess.run(
        ["git", "-C", str(repo.root), "cat-file", "--batch"],
        capture_output=True,
        timeout=600,
        input="".join(f"{oid}\n" for _, oid, _ in entries).encode(),
    )
    if proc.returncode != 0:
        raise InitError(f"git cat-file failed: {proc.stderr.decode(errors='replace').strip()}")
    data, at = proc.stdout, 0
    try:
        for mode, _, rel in entries:
            header_end = data.index(b"\n", at)
            size = int(data[at:header_end].split()[2])
            content, at = data[header_end + 1 : header_end + 1 + size], header_end + 2 + size
            target = write_target(dest, rel)
            if mode == "120000":
                link = content.decode("utf-8", errors="surrogateescape")
                if os.path.isabs(link):
                    raise InitError(
                        f"{rel!r} at {treeish[:12]} links outside the repository ({link!r}); refused: "
                        "a program tree may only link inside itself"
                    )
                os.symlink(link, target)
            else:
                target.write_bytes(content)
                if mode == "100755":
                    target.chmod(0o755)
        # Each link judged against the finished tree: one that looked inside while what it names
        # was missing (`l0 -> l1/..` before `l1` exists) may lead out once all are written.
        check_links(dest)
    except UnsafeLink as exc:
        raise InitError(f"at {treeish[:12]}: {exc}") from None


def ignored_files(repo: Repo) -> list[str]:
    """Files of the work tree git ignores (generated files, caches, venvs), relative to the root."""
    out = git(repo.root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
    return [
        p for p in out.split("\0") if p and not p.endswith("/")
    ]  # a whole ignored folder (a venv) is not generated code


def tracked_files(repo: Repo, treeish: str) -> list[str]:
    return [p for p in git(repo.root, "ls-tree", "-r", "-z", "--name-only", treeish).split("\0") if p]


def exclude(repo: Repo, patterns: list[str]) -> None:
    """Add `patterns` to `.git/info/exclude` (the repository's local ignore list) when missing."""
    path = repo.common_dir / "info" / "exclude"
    text = path.read_text(encoding="utf-8", errors="surrogateescape") if path.is_file() else ""
    missing = [p for p in patterns if p not in text.splitlines()]
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        sep = "" if not text or text.endswith("\n") else "\n"
        path.write_text(
            text + sep + "# the Prism task of `prism init`\n" + "".join(p + "\n" for p in missing),
            encoding="utf-8",
            errors="surrogateescape",
        )

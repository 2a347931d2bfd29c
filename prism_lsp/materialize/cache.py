"""The content-addressed tree cache: one program tree per (initial state, candidate).

A tree is built once into a temporary folder and renamed into place, so a
reader never sees a half-built tree and concurrent builders do not clash.
Nothing is ever written outside the cache folder.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.materialize.apply import ApplyError, apply_overlay, apply_patch, copy_tree
from prism_lsp.materialize.diffcheck import UnsafeDiff, summarize_diff
from prism_lsp.materialize.digest import file_digest, tree_digest
from prism_lsp.materialize.shared import link_tree, own_copies
from prism_lsp.model.task import Candidate, Task

log = logging.getLogger(__name__)

# v2: trees are readable by every uid (v1 trees sat in 0700 folders, unreadable to Docker's runners).
# v3: trees have no write bit (v2 trees were writable by their owner).
_FORMAT = "prism-tree-v3"
RELOOK_S = 1.0  # a cached tree whose files were looked at this recently is taken as it was


class MaterializeError(Exception):
    """A candidate's tree could not be built; `str()` is the message for the author."""


@dataclass(frozen=True)
class ProgramTree:
    """A built program tree and the lines its candidate changed (per relative file)."""

    path: Path
    digest: str
    changed: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False)


def default_cache_dir() -> Path:
    env = os.environ.get("PRISM_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "prism"


def _stat_signature(root: Path) -> tuple:
    sig = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git"))
        for name in sorted(filenames):
            st = os.lstat(os.path.join(dirpath, name))
            sig.append((dirpath, name, st.st_size, st.st_mtime_ns, st.st_mode))
    return tuple(sig)


def _seal(root: Path) -> None:
    """Make `root` read-only for everyone and readable by every uid.

    No write bit anywhere: an editor that opens a cached file (or a person) cannot change
    what later runs judge; the digest check catches a change made anyway (after a chmod).
    Every uid may read (a sandbox may run each runner under a uid of its own); trees hold
    the task's own files, which its runners read anyway, and the folders around the cache
    still decide who else on the host can reach them. Execute bits are kept.
    """
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if not stat.S_ISLNK(st.st_mode):
                _no_write(path, st.st_mode)
    _no_write(str(root), os.lstat(root).st_mode)  # last: mkdtemp made it 0700, its entries came first


def _no_write(path: str, mode: int) -> None:
    read = 0o555 if stat.S_ISDIR(mode) else 0o444
    os.chmod(path, (stat.S_IMODE(mode) | read) & ~0o222)


def remove_tree(path: Path) -> None:
    """Remove a cached tree (or a staging folder), giving its read-only folders the owner's
    write bit back first: without it, only root could delete their entries."""
    for dirpath, _dirnames, _filenames in os.walk(path):  # top-down: listed before it changes
        try:
            os.chmod(dirpath, 0o700)
        except OSError as exc:
            log.debug("remove_tree: chmod %s: %r", dirpath, exc)
    shutil.rmtree(path, ignore_errors=True)


class TreeCache:
    """Builds and remembers program trees under `root/trees/<digest>/tree`."""

    def __init__(self, root: Path | None = None):
        # Absolute: tree paths travel to runners in other processes and containers.
        self.root = (Path(root) if root else default_cache_dir()).resolve()
        self._lock = threading.Lock()
        self._initial_digests: dict[Path, tuple[tuple, str]] = {}
        self._errors: dict[str, str] = {}
        self._verified: dict[str, tuple] = {}  # tree digest -> stat signature when its content was last verified
        self._looked: dict[str, float] = {}  # tree digest -> when its stat signature last matched

    def initial_digest(self, task: Task) -> str:
        """Digest of the initial state, recomputed only when a file's stat changes."""
        sig = _stat_signature(task.initial)
        with self._lock:
            known = self._initial_digests.get(task.initial)
        if known and known[0] == sig:
            return known[1]
        digest = tree_digest(task.initial)
        with self._lock:
            self._initial_digests[task.initial] = (sig, digest)
        return digest

    def _intact(self, digest: str, final: Path, meta: dict) -> bool:
        """Whether the cached tree still holds what was built.

        Verdicts come from these trees, and an editor or a person may open their files: a tree
        whose content digest differs from the one recorded at build time is never used. The
        content is hashed again only when a file's stat changed since it was last verified; a
        tree found intact then is sealed again (someone may have given a file its write bit back).
        A tree looked at less than `RELOOK_S` ago is not looked at again: a panel run asks for each
        tree a few times, and one stat of each of networkx's 968 files is 10 ms a tree."""
        now = time.monotonic()
        with self._lock:
            if now - self._looked.get(digest, -RELOOK_S) < RELOOK_S:
                return True
        sig = _stat_signature(final / "tree")
        with self._lock:
            if self._verified.get(digest) == sig:
                self._looked[digest] = now
                return True
        if meta.get("content") != tree_digest(final / "tree"):
            return False
        try:
            _seal(final)
        except OSError as exc:  # another uid's tree, or being replaced: its content was verified
            log.debug("cannot seal %s again: %r", final, exc)
        sig = _stat_signature(final / "tree")
        with self._lock:
            self._verified[digest] = sig
            self._looked[digest] = time.monotonic()
        return True

    def baseline(self, task: Task) -> ProgramTree:
        """The initial state as a cached tree (the author's folder is never run in place)."""
        digest = hashlib.sha256(f"{_FORMAT}:initial:{self.initial_digest(task)}".encode()).hexdigest()
        return self._build(digest, lambda tree: _copy_initial(task.initial, tree))

    def program(self, task: Task, candidate: Candidate | None) -> ProgramTree:
        """The tree of one program: the initial state when `candidate` is None, else that candidate's."""
        return self.baseline(task) if candidate is None else self.candidate(task, candidate)

    def candidate(self, task: Task, candidate: Candidate) -> ProgramTree:
        """The candidate's tree; raises `MaterializeError` naming what failed."""
        src_digest = file_digest(candidate.source) if candidate.kind == "patch" else tree_digest(candidate.source)
        key = f"{_FORMAT}:{self.initial_digest(task)}:{candidate.kind}:{src_digest}"
        digest = hashlib.sha256(key.encode()).hexdigest()

        def build(tree: Path) -> dict[str, set[int]]:
            # The initial state's files shared with its cached tree; what the candidate writes, its own.
            link_tree(self.baseline(task).path, tree)
            if candidate.kind == "overlay":
                return apply_overlay(candidate.source, tree, task.initial)
            text = candidate.source.read_text(encoding="utf-8", errors="replace")
            summary = summarize_diff(text)
            own_copies(tree, summary.touched)
            apply_patch(candidate.source, tree)
            return summary.changed_lines

        try:
            return self._build(digest, build)
        except (ApplyError, UnsafeDiff) as exc:
            raise MaterializeError(f"candidate {candidate.id!r}: {exc}") from None

    def _build(self, digest: str, build) -> ProgramTree:
        final = self.root / "trees" / digest
        meta_path = final / "meta.json"
        if digest in self._errors:
            raise ApplyError(self._errors[digest])
        if meta_path.is_file():
            meta = json.loads(meta_path.read_text())
            if self._intact(digest, final, meta):
                return ProgramTree(final / "tree", digest, {k: tuple(v) for k, v in meta["changed"].items()})
            log.warning("cached tree %s changed on disk since it was built; building it again", final)
            remove_tree(final)
        (self.root / "trees").mkdir(mode=0o755, parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".build-", dir=self.root / "trees"))
        try:
            tree = staging / "tree"
            tree.mkdir()
            try:
                changed = build(tree)
            except (ApplyError, UnsafeDiff) as exc:
                self._errors[digest] = str(exc)
                raise
            meta = {
                "format": _FORMAT,
                "changed": {k: sorted(v) for k, v in changed.items()},
                "content": tree_digest(tree),
            }
            (staging / "meta.json").write_text(json.dumps(meta))
            _seal(staging)
            try:
                os.rename(staging, final)
            except OSError:
                if not meta_path.is_file():  # lost a race to a half-written tree: should not happen
                    raise
            with self._lock:
                self._verified[digest] = _stat_signature(final / "tree")
        finally:
            if staging.exists():
                remove_tree(staging)
        return ProgramTree(final / "tree", digest, {k: tuple(sorted(v)) for k, v in changed.items()})


def _copy_initial(initial: Path, tree: Path) -> dict[str, str]:
    """Build step of the initial state's tree: a plain copy, no files to report."""
    copy_tree(initial, tree)
    return {}

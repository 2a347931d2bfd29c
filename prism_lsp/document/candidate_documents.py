"""Candidates as read-only documents: `prism-candidate:` URIs and what they hold.

An editor shows a candidate as a diff of two read-only documents, the initial program's
file and the candidate's, both served from the verified tree cache (never a path into
it, which an editor could open writable). A URI names the program (`initial` or a
candidate id), the file's path inside the tree, and the suite document whose task it
belongs to:

    prism-candidate:/half-even/solution.py?doc=file%3A///task/suites/test_x.py

Only at reveal `full`: a candidate's file is its answer. Pure: no LSP.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from prism_lsp.engine.panel import BASELINE
from prism_lsp.materialize import ProgramTree
from prism_lsp.model.task import Task

SCHEME = "prism-candidate"
MAX_FILES = 20  # files listed per candidate (a candidate rewriting a whole repository lists its first ones)


class NotShown(Exception):
    """A candidate document that cannot be shown; the message is for the user."""


@dataclass(frozen=True)
class CandidateUri:
    program: str  # `initial` or a candidate id
    path: str  # posix path inside the program's tree
    document: str  # the suite document's uri (which task)

    def __str__(self) -> str:
        return f"{SCHEME}:/{quote(self.program, safe='')}/{quote(self.path)}?{urlencode({'doc': self.document})}"


def parse_uri(raw: str) -> CandidateUri:
    """The parts of a `prism-candidate:` URI; `NotShown` for anything else or a path that leaves the tree."""
    parts = urlsplit(raw)
    if parts.scheme != SCHEME:
        raise NotShown(f"not a {SCHEME}: uri: {raw!r}")
    program, _, rel = unquote(parts.path).lstrip("/").partition("/")
    # Editors re-encode URIs: VS Code sends the query as `doc%3Dfile%253A...` (its `=` and `%` escaped).
    query = parts.query if "=" in parts.query else unquote(parts.query)
    document = parse_qs(query).get("doc", [""])[0]
    path = PurePosixPath(rel)
    if not program or not rel or not document or path.is_absolute() or ".." in path.parts:
        raise NotShown(f"not a candidate document: {raw!r}")
    return CandidateUri(program, path.as_posix(), document)


def _check_revealed(task: Task, reveal: str) -> None:
    if reveal != "full":
        raise NotShown(f"the panel of {task.id} is not revealed (reveal = {reveal}): candidates cannot be shown")


def candidate_view(task: Task, reveal: str, candidate_id: str, tree: ProgramTree | None, document: str) -> dict:
    """What a client needs to open the candidate as diffs against the initial program."""
    _check_revealed(task, reveal)
    cand = task.candidate(candidate_id)
    if cand is None:
        raise NotShown(f"no candidate {candidate_id!r} in {task.id}")
    if tree is None:
        raise NotShown(f"candidate {candidate_id!r} of {task.id} cannot be built")
    files = []
    for rel, lines in sorted(tree.changed.items())[:MAX_FILES]:
        files.append(
            {
                "path": rel,
                "line": max(min(lines) - 1, 0) if lines else 0,
                "initial": str(CandidateUri(BASELINE, rel, document)),
                "candidate": str(CandidateUri(cand.id, rel, document)),
            }
        )
    return {
        "id": cand.id,
        "label": cand.label,
        "reference": cand.reference,
        "note": cand.note or None,
        "title": f"{cand.id} ({'reference' if cand.reference else cand.label})",
        "files": files,
    }


def file_text(task: Task, reveal: str, uri: CandidateUri, tree: ProgramTree | None) -> str:
    """The text of one file of one program's tree ('' when that program has no such file: added or deleted)."""
    _check_revealed(task, reveal)
    if uri.program != BASELINE and task.candidate(uri.program) is None:
        raise NotShown(f"no candidate {uri.program!r} in {task.id}")
    if tree is None:
        raise NotShown(f"{uri.program!r} of {task.id} cannot be built")
    root = tree.path.resolve()
    target = (root / uri.path).resolve()
    if not target.is_relative_to(root):  # a symlink in the tree pointing out of it
        raise NotShown(f"{uri.path} is not inside the tree of {uri.program!r}")
    if not target.is_file():
        return ""
    return target.read_text(encoding="utf-8", errors="replace")

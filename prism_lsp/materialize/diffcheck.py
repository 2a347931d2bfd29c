"""Read a unified diff before anything applies it: refuse unsafe paths, find changed lines.

Candidate diffs are untrusted and are applied on the host, outside the sandbox,
so every path they name must stay inside the tree and they may not create
symlinks or special files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_PATH_HEADERS = ("--- ", "+++ ", "rename from ", "rename to ", "copy from ", "copy to ")


class UnsafeDiff(ValueError):
    """The diff would touch something outside the tree or create a special file."""


@dataclass
class DiffSummary:
    """Files a diff touches and, per file, the new-side lines it adds or changes."""

    files: list[str] = field(default_factory=list)
    changed_lines: dict[str, set[int]] = field(default_factory=dict)
    # Every path a header names (old and new sides, renames, copies): what applying it may write.
    touched: set[str] = field(default_factory=set)


# git's C-quoting of a path (quote.c): these escapes, and `\ooo` octal bytes (the path's UTF-8).
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def unquote_c(text: str) -> tuple[str, str]:
    """(the path, the rest of the line) of `text` starting with a C-quoted path, unescaped exactly as git
    unquotes it; `UnsafeDiff` when the quoting is malformed (git apply would then read the quotes as
    part of the name, so this check and git would disagree)."""
    out = bytearray()
    i = 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            return out.decode("utf-8", errors="surrogateescape"), text[i + 1 :]
        if ch != "\\":
            out += ch.encode("utf-8", errors="surrogateescape")
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif re.fullmatch(r"[0-3][0-7][0-7]", text[i + 1 : i + 4]):
            out.append(int(text[i + 1 : i + 4], 8))
            i += 4
        else:
            raise UnsafeDiff(f"malformed quoted path {text!r}: unknown escape \\{nxt}")
    raise UnsafeDiff(f"malformed quoted path {text!r}: no closing quote")


def _path_field(raw: str) -> str:
    """The path a header line names: C-quoted (unescaped) or plain (up to a tab, as git writes it)."""
    raw = raw.strip(" ")
    if raw.startswith('"'):
        return unquote_c(raw)[0]
    return raw.split("\t", 1)[0].strip()


def _strip_prefix(raw: str) -> str | None:
    path = _path_field(raw)
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        path = path[2:]
    return path


def check_path(path: str) -> None:
    """Raise `UnsafeDiff` unless `path` is a plain relative path inside the tree."""
    if path.startswith("/") or path.startswith("~") or re.match(r"^[A-Za-z]:[\\/]", path):
        raise UnsafeDiff(f"absolute path {path!r} is not allowed; diff paths must be relative to the tree")
    parts = re.split(r"[\\/]+", path)
    if ".." in parts:
        raise UnsafeDiff(f"path {path!r} escapes the tree with '..'")
    if parts and parts[0] == ".git":
        raise UnsafeDiff(f"path {path!r} writes into .git")


def _git_header_path(raw: str) -> str | None:
    """The file of a `diff --git a/PATH b/PATH` header when both sides name the same path (checked)."""
    rest = raw[len("diff --git ") :]
    if '"' in rest:
        if rest.startswith('"'):
            left, after = unquote_c(rest)
            after = after.lstrip(" ")
        else:
            left, _, after = rest.partition(" ")
        right = unquote_c(after)[0] if after.startswith('"') else after
    else:
        half = (len(rest) - 1) // 2
        if rest[half : half + 1] != " ":
            return None
        left, right = rest[:half], rest[half + 1 :]
    if not (left.startswith("a/") and right.startswith("b/")) or left[2:] != right[2:]:
        return None  # renamed: the `rename to`/`+++` lines name the file
    check_path(left[2:])
    return left[2:]


def summarize_diff(text: str) -> DiffSummary:
    """Check every path and mode in `text` and collect the lines each file gains.

    A pure deletion marks the new-side line where it happened, so a test that
    runs the code around a removed line still counts as reaching the change.
    """
    summary = DiffSummary()
    current: str | None = None
    header_path: str | None = None  # the file of the current `diff --git` header, for a binary patch
    new_line = 0
    in_hunk = False
    old_left = new_left = 0
    for raw in text.splitlines():
        if in_hunk and (old_left > 0 or new_left > 0):
            tag = raw[:1]
            if tag == "+":
                summary.changed_lines.setdefault(current or "", set()).add(new_line)
                new_line += 1
                new_left -= 1
                continue
            if tag == "-":
                summary.changed_lines.setdefault(current or "", set()).add(max(new_line, 1))
                old_left -= 1
                continue
            if tag == " " or raw == "":
                new_line += 1
                old_left -= 1
                new_left -= 1
                continue
            if tag == "\\":
                continue
        in_hunk = False
        for header in _PATH_HEADERS:
            if raw.startswith(header):
                path = (
                    _strip_prefix(raw[len(header) :])
                    if header.startswith(("---", "+++"))
                    else _path_field(raw[len(header) :])
                )
                if path is not None:
                    check_path(path)
                    summary.touched.add(path)
                    if header == "+++ " or header in ("rename to ", "copy to "):
                        current = path
                        if path not in summary.files:
                            summary.files.append(path)
                break
        else:
            if raw.startswith(("new file mode ", "new mode ", "old mode ", "deleted file mode ")):
                mode = raw.rsplit(" ", 1)[-1]
                if mode.startswith("12") or mode.startswith("16"):
                    raise UnsafeDiff(
                        f"the diff creates a symlink or submodule (mode {mode}); only regular files are allowed"
                    )
            elif raw.startswith("GIT binary patch"):
                # git apply writes the file the header names (or `rename to`): it must be checked.
                target = current or header_path
                if target is None:
                    raise UnsafeDiff("a binary patch without a `diff --git a/PATH b/PATH` header naming its file")
                if target not in summary.files:
                    summary.files.append(target)
                summary.touched.add(target)
            elif raw.startswith("diff --git "):
                current = None
                header_path = _git_header_path(raw)
                if header_path is not None:
                    summary.touched.add(header_path)
            else:
                m = _HUNK.match(raw)
                if m:
                    in_hunk = True
                    old_left = int(m.group(2) or 1)
                    new_left = int(m.group(4) or 1)
                    new_line = int(m.group(3))
    if not summary.files:
        raise UnsafeDiff("no file changes found; expected a unified diff with ---/+++ headers and @@ hunks")
    return summary

"""Real git repositories in tmp folders, and `prism` run in-process on them."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

from prism_lsp.cli import prism_main


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@example.org",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@example.org",
        },
    ).stdout


def write(repo: Path, files: dict[str, str | bytes | None]) -> None:
    """Write files (text dedented; bytes as they are; None deletes)."""
    for rel, content in files.items():
        path = repo / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content))


def make_repo(path: Path, files: dict[str, str | bytes]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write(path, files)
    commit(path, "the code before the fix")
    return path


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain=v1", "--untracked-files=all")


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the work tree, and of the git folder what a user's state lives in (refs, HEAD,
    config, info/exclude); not the objects or the index, whose stat cache `git status` refreshes."""
    out = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if rel.startswith(".git/") and not rel.startswith((".git/refs/", ".git/info/", ".git/HEAD", ".git/config")):
            continue
        if path.is_file() and not rel.startswith(".venv/"):
            out[rel] = path.read_bytes()
    return out


def prism(capsys, *args: str) -> tuple[int, str, str]:
    """`prism ARGS` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    code = prism_main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, suite: Path, *extra: str) -> dict:
    code, out, err = prism(capsys, "run", str(suite), "--json", *extra)
    assert code in (0, 1), err
    return json.loads(out)

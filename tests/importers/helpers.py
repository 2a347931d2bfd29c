"""Helpers for the importer tests: diffs, patch sets, and `prism` run end to end."""

from __future__ import annotations

import difflib
import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path


def diff(rel: str, old: str, new: str) -> str:
    """A unified diff (a/ b/ prefixes) turning `old` into `new` at `rel`."""
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}")
    return "".join(lines)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def patch_set(folder: Path, entries: list[dict], *, fmt: str = "toml", initial: str | None = None) -> Path:
    """Write a patch set: each entry has id, label, reference?, diff (text, or bytes kept exactly);
    sha256 filled in unless given."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for e in entries:
        path = folder / f"{e['id']}.diff"
        path.write_bytes(e["diff"] if isinstance(e["diff"], bytes) else e["diff"].encode())
        row = {
            "id": e["id"],
            "label": e["label"],
            "patch": path.name,
            "sha256": e.get("sha256") or hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        if e.get("reference"):
            row["reference"] = True
        rows.append(row)
    if fmt == "json":
        data = {"candidates": rows} | ({"initial": initial} if initial else {})
        (folder / "patch-set.json").write_text(json.dumps(data, indent=2))
    else:
        lines = [f'initial = "{initial}"'] if initial else []
        for row in rows:
            lines.append("[[candidate]]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in row.items()]
        (folder / "patch-set.toml").write_text("\n".join(lines) + "\n")
    return folder


def prism(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """`prism ARGS` in a subprocess (the installed CLI), text output."""
    return subprocess.run(
        [sys.executable, "-c", "from prism_lsp.cli import prism_main; prism_main()", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_report(task: Path, suite: Path, cache: Path) -> tuple[int, dict]:
    """`prism run TASK SUITE --json --sandbox bubblewrap`: (exit status, report)."""
    proc = prism("run", str(task), str(suite), "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache))
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def verdicts(report: dict) -> dict[str, str]:
    return {c["id"]: c["outcome"] for c in report["candidates"]}

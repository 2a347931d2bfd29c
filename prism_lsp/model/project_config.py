"""`[tool.prism]` in a project's pyproject.toml: the defaults of `prism run` and `prism gate`.

The command line wins over the file, the file over Prism's own defaults. The file belongs to
the repository, which is untrusted: it can choose anything the command line can except running
candidates unisolated (`sandbox = "none"` is refused), and a reveal level it names can only hide
more (the strictest level wins, as everywhere). Bad values are one `ManifestError` naming the
file, the key and what was expected, for every bad key at once.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from prism_lsp.model.manifest import _EXPECTED, MAX_MANIFEST_BYTES, MAX_TIMEOUT_S, ManifestError, _got
from prism_lsp.model.reveal import PanelLevel
from prism_lsp.model.sandbox import IsolatedSandbox

TABLE = "tool.prism"
MAX_WORKERS = 64


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class ProjectConfig(BaseModel):
    """The keys of `[tool.prism]`, named as the command-line options are."""

    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=_kebab, populate_by_name=True)

    sandbox: IsolatedSandbox | None = None
    reveal: PanelLevel | None = None
    timeout: float | None = Field(default=None, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    workers: int | None = Field(default=None, ge=1, le=MAX_WORKERS)
    fail_under_invalid_rejection: float | None = Field(default=None, ge=0, le=100)
    fail_under_valid_acceptance: float | None = Field(default=None, ge=0, le=100)
    require_jsf: bool | None = None
    mutate: Literal["changed", "all"] | None = None
    max_invalid: int | None = Field(default=None, ge=1, le=50)
    seed: int | None = None


def _message(err: ErrorDetails) -> str:
    if err["type"] == "extra_forbidden":
        return f"unknown key (known: {', '.join(f.alias or name for name, f in ProjectConfig.model_fields.items())})"
    if err["type"] == "literal_error":
        extra = (
            " (`none` only from the command line: the project cannot turn the sandbox off)"
            if err.get("input") == "none"
            else ""
        )
        return f"{err['msg']}, got {err.get('input')!r}{extra}"
    if err["type"] in _EXPECTED:
        return f"expected {_EXPECTED[err['type']]}, got {_got(err.get('input'))}"
    return f"{err['msg']}, got {_got(err.get('input'))}"


def read_project_config(pyproject: Path) -> ProjectConfig:
    """`[tool.prism]` of `pyproject` (empty when it has none); `ManifestError` naming every bad key."""
    try:
        raw = pyproject.read_bytes()
    except OSError as exc:
        raise ManifestError(pyproject, "", f"cannot read it ({exc.strerror})") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(pyproject, "", f"too large ({len(raw):,} bytes > {MAX_MANIFEST_BYTES:,})")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ManifestError(pyproject, "", f"invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("prism", {}) if isinstance(data.get("tool"), dict) else {}
    if not isinstance(table, dict):
        raise ManifestError(pyproject, TABLE, "expected a table ([tool.prism])")
    try:
        return ProjectConfig.model_validate(table)
    except ValidationError as exc:
        problems = [f"[{TABLE}] {'.'.join(str(p) for p in e['loc'])}: {_message(e)}" for e in exc.errors()]
        raise ManifestError(pyproject, "", "; ".join(problems)) from None


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` (a folder or a file)."""
    here = Path(start).resolve()
    for folder in [here, *here.parents] if here.is_dir() else here.parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def project_config(start: Path) -> ProjectConfig:
    """The `[tool.prism]` defaults that apply at `start` (none without a pyproject.toml)."""
    found = find_pyproject(start)
    return read_project_config(found) if found else ProjectConfig()


def apply_defaults(args: argparse.Namespace, config: ProjectConfig, names: tuple[str, ...]) -> None:
    """Fill each option of `args` in `names` that the command line left unset (None) from `config`."""
    for name in names:
        if getattr(args, name, None) is None and getattr(config, name) is not None:
            setattr(args, name, getattr(config, name))

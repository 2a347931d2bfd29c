"""The `prism.toml` manifest, validated at the edge.

Every problem becomes a `ManifestError` naming the file, the key and what was
expected, so the author never sees a pydantic or TOML traceback.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from prism_lsp.model.reveal import RevealLevel
from prism_lsp.model.sandbox import SandboxName
from prism_lsp.model.untrusted import plain

Label = Literal["valid", "invalid"]
Origin = Literal["hand", "mutant", "sample"]

_ID = re.compile(r"^[a-z0-9._-]+$")


def _check_id(v: str) -> str:
    if not _ID.match(v):
        raise ValueError(f"expected an id matching [a-z0-9._-]+, got {v!r}")
    return v


Id = Annotated[str, AfterValidator(_check_id)]

# The longest per-program run a manifest (or a command-line override) may ask for.
MAX_TIMEOUT_S = 3600
# A task folder is untrusted: a manifest larger than this is refused before it is parsed.
MAX_MANIFEST_BYTES = 1_000_000
# Free text of a manifest (statement, notes) is shown in terminals and editors: data, never control codes.
Text = Annotated[str, AfterValidator(plain)]


class ManifestError(Exception):
    """A manifest problem, phrased for the author: file, key and what was expected."""

    def __init__(self, file: Path | str, key: str, problem: str):
        self.file = str(file)
        self.key = key
        self.problem = problem
        where = f"{self.file}: {key}: " if key else f"{self.file}: "
        super().__init__(where + problem)


class TaskSection(BaseModel):
    # Strict: TOML has native booleans, integers and floats, so `timeout_s = "10"` or
    # `memory_mb = 1.5` is a mistake to report, not a value to coerce.
    model_config = ConfigDict(extra="forbid", strict=True)

    id: Id
    statement: Text = ""
    initial: str = "initial"
    timeout_s: float = Field(default=10, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    memory_mb: int = Field(default=1024, ge=64, le=65536)
    # Processes and threads a program's sandbox may hold at once (a fork bomb stops there).
    pids_max: int = Field(default=256, ge=32, le=65536)
    sandbox: SandboxName = "auto"
    image: str | None = None
    dockerfile: str | None = None
    python: str | None = None
    reveal: RevealLevel = "full"
    # A non-pytest task's own test command, run with /bin/sh -c in the program tree; exit 0 = pass.
    test_command: str | None = None
    # Folders of each program tree put first on the runner's `sys.path` (e.g. ["src"]), so a
    # program imports its own tree even when the task's venv has the repository installed editable.
    pythonpath: list[str] = Field(default_factory=list)

    @field_validator("pythonpath")
    @classmethod
    def _inside_tree(cls, v: list[str]) -> list[str]:
        for rel in v:
            parts = rel.replace("\\", "/").split("/")
            if not rel or rel.startswith("/") or ".." in parts:
                raise ValueError(f"expected folders relative to the program tree, inside it; got {rel!r}")
        return v

    # Entry points (`module:function`) that witness search probes; inferred from the suite when absent.
    entry: list[str] | None = None

    @field_validator("entry")
    @classmethod
    def _entry_shape(cls, v: list[str] | None) -> list[str] | None:
        for item in v or []:
            module, sep, func = item.partition(":")
            if not sep or not all(p.isidentifier() for p in module.split(".") + func.split(".")):
                raise ValueError(f'expected "module:function" entries such as "solution:mean_rounded", got {item!r}')
        return v


class CandidateSection(BaseModel):
    # Strict for the same reason: lax pydantic turns `reference = "yes"` (or "no"!) into a bool.
    model_config = ConfigDict(extra="forbid", strict=True)

    id: Id
    label: Label
    reference: bool = False
    patch: str | None = None
    overlay: str | None = None
    sha256: str | None = None
    note: Text = ""
    # Where the candidate came from: written by hand, a mutant of the reference (`prism panel
    # build`), or a labelled sample such as a model's or a student's (`prism panel label`).
    origin: Origin = "hand"

    @field_validator("sha256")
    @classmethod
    def _digest_shape(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[0-9a-f]{64}", v):
            raise ValueError("expected 64 lowercase hex digits")
        return v


class VerifierSection(BaseModel):
    """The trusted suite that decides validity; it labels candidates and is never judged itself."""

    model_config = ConfigDict(extra="forbid", strict=True)

    suite: str


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    task: TaskSection
    verifier: VerifierSection | None = None
    candidate: list[CandidateSection] = Field(default_factory=list)


def _key_of(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """Turn a pydantic error location into the key an author sees in the file."""
    parts: list[str] = []
    i = 0
    while i < len(loc):
        part = loc[i]
        idx = loc[i + 1] if i + 1 < len(loc) else None
        if part == "candidate" and isinstance(idx, int):
            cands = data.get("candidate") or []
            cid = cands[idx].get("id") if idx < len(cands) and isinstance(cands[idx], dict) else None
            parts.append(f"candidate[{idx}]" + (f" ({cid})" if cid else ""))
            i += 2
            continue
        parts.append(str(part))
        i += 1
    return ".".join(parts)


# Pydantic's type errors, phrased in TOML's terms (the author writes TOML, not Python).
_EXPECTED = {
    "bool_type": "a boolean (true or false, without quotes)",
    "int_type": "an integer (without quotes)",
    "float_type": "a number (without quotes)",
    "string_type": "a string (in quotes)",
}


def _got(value: object) -> str:
    """How `value` was written in TOML, for "expected X, got Y" messages: `the string 'yes'`."""
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "a table"  # a whole table or array would drown the message
    if isinstance(value, list):
        return "an array"
    return f"the date/time {value}"


def parse_manifest(path: Path) -> Manifest:
    """Read and validate `path`; raise `ManifestError` for any problem, never anything else."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ManifestError(path, "", f"cannot read the manifest ({exc.strerror})") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(path, "", f"the manifest is too large ({len(raw):,} bytes > {MAX_MANIFEST_BYTES:,})")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ManifestError(path, "", "expected UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(path, "", f"invalid TOML: {exc}") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively.
        raise ManifestError(path, "", "invalid TOML: arrays or tables nested too deeply") from None
    if "task" not in data:
        raise ManifestError(path, "task", "missing [task] table")
    if "candidate" in data and not isinstance(data["candidate"], list):
        raise ManifestError(path, "candidate", "expected [[candidate]] entries (an array of tables)")
    try:
        manifest = Manifest.model_validate(data)
    except RecursionError:
        raise ManifestError(path, "", "values nested too deeply") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        key = _key_of(tuple(err["loc"]), data)
        msg = err["msg"]
        if err["type"] == "missing":
            msg = "missing required key"
        elif err["type"] == "extra_forbidden":
            msg = "unknown key (check the spelling against DESIGN.md's prism.toml)"
        elif err["type"] == "literal_error":
            msg = f"{msg}, got {err.get('input')!r}"
        elif err["type"] in _EXPECTED:
            msg = f"expected {_EXPECTED[err['type']]}, got {_got(err.get('input'))}"
        raise ManifestError(path, key, msg) from None
    _check_panel(path, manifest)
    return manifest


def _check_panel(path: Path, m: Manifest) -> None:
    if not m.candidate:
        raise ManifestError(path, "candidate", "expected at least one [[candidate]] (the reference)")
    seen: set[str] = set()
    for i, c in enumerate(m.candidate):
        key = f"candidate[{i}] ({c.id})"
        if c.id in seen:
            raise ManifestError(path, f"{key}.id", f"duplicate candidate id {c.id!r}; ids must be unique")
        seen.add(c.id)
        if (c.patch is None) == (c.overlay is None):
            raise ManifestError(path, key, "expected exactly one of `patch` or `overlay`")
        if c.reference and c.label != "valid":
            raise ManifestError(path, f"{key}.label", 'the reference must be labelled "valid"')
    refs = [c.id for c in m.candidate if c.reference]
    if len(refs) != 1:
        found = ", ".join(refs) if refs else "none"
        raise ManifestError(path, "candidate.reference", f"expected exactly one reference, found {len(refs)} ({found})")

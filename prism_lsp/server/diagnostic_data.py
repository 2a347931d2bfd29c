"""The `data` every Prism diagnostic carries, one typed structure for the three places that use it:
diagnostics write it, code actions read it back from the client (an edge: any JSON may come),
and the code actions' commands take candidate ids from it.

On the wire it is a JSON object with all four keys (`kind`, `rule`, `candidates`, `tests`), so a
client (the VS Code extension, Neovim) reads the same shape from every diagnostic.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError


class DiagnosticData(BaseModel):
    """What a diagnostic is about: its finding kind, the static rule (or `syntax`/`limits`), the
    candidates it names (none below reveal `full`) and the tests it belongs to."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: str
    rule: str | None = None
    candidates: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()

    def to_lsp(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, "candidates": list(self.candidates), "tests": list(self.tests)}

    @classmethod
    def from_lsp(cls, raw: object) -> DiagnosticData | None:
        """The data a client sent back, or None when it is not ours (another server's, or mangled)."""
        if not isinstance(raw, dict):
            return None
        try:
            return cls.model_validate(raw)
        except ValidationError:
            return None

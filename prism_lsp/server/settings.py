"""The server settings object of DESIGN.md, validated at the edge.

`initializationOptions`, `workspace/didChangeConfiguration` (section `prism`) and
`workspace/configuration` all carry the same object. Parsing never fails: an unknown
key is reported as a log line, a wrong value as a problem (shown once to the user)
and replaced by its default.

The server's settings are layered (:class:`SettingsLayers`): defaults <
initializationOptions < workspace configuration. A client may send only the keys
that changed, or answer `workspace/configuration` with `{}` or null when it has no
`prism` section, so each layer keeps only the valid keys it was given and a new
message changes only the keys it names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from prism_lsp.judge.reveal import strictest
from prism_lsp.model.report import FINDING_KINDS
from prism_lsp.model.reveal import RevealLevel
from prism_lsp.model.sandbox import SandboxName

Level = Literal["error", "warning", "information", "hint"]

DEFAULT_SEVERITY: dict[str, Level] = {
    "rejects-valid": "warning",
    "accepts-invalid": "information",
    "misses-baseline": "warning",
    "execution-error": "error",
    "weak-assertion": "hint",
    "unstable": "warning",
}


class Settings(BaseModel):
    """One validated settings object (every key present)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="ignore")

    run_on: Literal["type", "save"] = Field("type", alias="runOn")
    # Strict: JSON numbers only (`true` is not 1 ms, "400" is a mistake to report), finite.
    debounce_ms: float = Field(400, alias="debounceMs", ge=0, le=60_000, strict=True, allow_inf_nan=False)
    reveal: RevealLevel = "full"
    sandbox: SandboxName = "auto"
    timeout_seconds: float | None = Field(None, alias="timeoutSeconds", gt=0, le=3600, strict=True, allow_inf_nan=False)
    severity: dict[str, Level] = Field(default_factory=lambda: dict(DEFAULT_SEVERITY))
    # Set by the client, never by a user setting: the folder is not trusted (VS Code's Restricted
    # Mode), so only static hints; no panel runs, candidate views or task offers.
    static_only: bool = Field(False, alias="staticOnly", strict=True)

    def level(self, kind: str) -> Level:
        return self.severity.get(kind, DEFAULT_SEVERITY.get(kind, "information"))

    def effective_reveal(self, task_reveal: str) -> str:
        """The stricter of this setting and the task's own reveal level (the panel can hide itself)."""
        return strictest(self.reveal, task_reveal)


@dataclass
class ParsedSettings:
    settings: Settings
    problems: list[str] = field(default_factory=list)  # wrong values: shown to the user once
    unknown: list[str] = field(default_factory=list)  # unknown keys: one log line


_FIELDS = {f.alias or name: name for name, f in Settings.model_fields.items()}


def parse_settings(raw: Any) -> ParsedSettings:
    """Validate `raw` alone, over the defaults (one settings message; every bad value falls back alone)."""
    return SettingsLayers().set_initialization(raw)


def _severity(
    value: Any, problems: list[str], unknown: list[str], fallback: dict[str, Level] = DEFAULT_SEVERITY
) -> dict[str, Level]:
    """The valid levels of `value` over `fallback` (whose values a wrong level keeps)."""
    merged = dict(fallback)
    if not isinstance(value, dict):
        problems.append(
            f"prism.severity: {_show(value)} is not an object; "
            f"{'using the default' if fallback == DEFAULT_SEVERITY else 'keeping the current'} severities."
        )
        return merged
    levels = Level.__args__  # type: ignore[attr-defined]
    for kind, level in value.items():
        if kind not in FINDING_KINDS:
            unknown.append(f"severity.{kind}")
        elif level not in levels:
            problems.append(
                f"prism.severity.{kind}: {_show(level)} is not one of {', '.join(levels)}; "
                f"using {_show(fallback.get(kind, DEFAULT_SEVERITY[kind]))}."
            )
        else:
            merged[kind] = level
    return merged


def _section(raw: Any) -> Any:
    """The `prism` section when `raw` wraps it (`{"prism": {...}}`), else `raw` itself."""
    return raw.get("prism", raw) if isinstance(raw, dict) and isinstance(raw.get("prism"), dict) else raw


@dataclass
class SettingsLayers:
    """defaults < initializationOptions < workspace configuration, each layer only the valid keys given.

    Pure state, no LSP: the server feeds it every settings message and uses `settings`.
    """

    initialization: dict[str, Any] = field(default_factory=dict)
    workspace: dict[str, Any] = field(default_factory=dict)

    @property
    def settings(self) -> Settings:
        return Settings.model_validate(_merge({"severity": DEFAULT_SEVERITY}, self.initialization, self.workspace))

    def set_initialization(self, raw: Any) -> ParsedSettings:
        """`initializationOptions`: replaces that layer (sent once, whole)."""
        layer, problems, unknown = self._layer(raw, Settings.model_validate(self.workspace))
        self.initialization = layer
        return ParsedSettings(self.settings, problems, unknown)

    def update_workspace(self, raw: Any) -> ParsedSettings:
        """`didChangeConfiguration` or a `workspace/configuration` answer: only the keys it names change.

        An empty or null answer names nothing, so it changes nothing (a client without a `prism`
        section answers that way, and must not undo the initializationOptions)."""
        if raw is None:
            return ParsedSettings(self.settings)
        layer, problems, unknown = self._layer(raw, self.settings)
        self.workspace = _merge(self.workspace, layer)
        return ParsedSettings(self.settings, problems, unknown)

    @staticmethod
    def _layer(raw: Any, current: Settings) -> tuple[dict[str, Any], list[str], list[str]]:
        """The valid keys of `raw`; a wrong value is reported with the value that stays (`current`'s)."""
        raw = _section(raw)
        if raw is None:
            return {}, [], []
        if not isinstance(raw, dict):
            return {}, [f"prism settings must be an object, got {_show(raw)}; keeping the current settings."], []
        layer: dict[str, Any] = {}
        problems: list[str] = []
        unknown = [k for k in raw if k not in _FIELDS]
        for key, name in _FIELDS.items():
            if key not in raw or raw[key] is None:
                continue
            if key == "severity":
                merged = _severity(raw[key], problems, unknown, current.severity)
                if isinstance(raw[key], dict):  # only the kinds it named, with a valid level
                    layer[key] = {k: v for k, v in merged.items() if k in raw[key] and raw[key][k] == v}
                continue
            try:
                Settings.model_validate({key: raw[key]})
            except ValidationError as exc:
                problems.append(
                    f"prism.{key}: {_show(raw[key])} is not valid ({_reason(exc)}); "
                    f"using {_show(getattr(current, name))}."
                )
                continue
            layer[key] = raw[key]
        return layer, problems, unknown


def _merge(*layers: dict[str, Any]) -> dict[str, Any]:
    """Each layer over the ones before it; severities merge per finding kind."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update({k: v for k, v in layer.items() if k != "severity"})
        if "severity" in layer:
            merged["severity"] = {**merged.get("severity", {}), **layer["severity"]}
    return merged


def _reason(exc: ValidationError) -> str:
    return "; ".join(e["msg"] for e in exc.errors())


def _show(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)

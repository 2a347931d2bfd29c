"""Settings parsing: defaults, the VS Code fixture, wrong values and unknown keys."""

from __future__ import annotations

import json

from prism_lsp.server.settings import DEFAULT_SEVERITY, Settings, parse_settings
from tests.lsp.harness import INIT_OPTIONS


def test_defaults_match_design():
    s = Settings()
    assert (s.run_on, s.debounce_ms, s.reveal, s.sandbox) == ("type", 400, "full", "auto")
    assert s.severity == DEFAULT_SEVERITY


def test_vscode_fixture_is_accepted_whole():
    parsed = parse_settings(json.loads(INIT_OPTIONS.read_text())["initializationOptions"])
    assert parsed.problems == [] and parsed.unknown == []
    s = parsed.settings
    assert (s.run_on, s.debounce_ms, s.reveal, s.sandbox, s.timeout_seconds) == ("save", 150, "labels", "none", 5)
    assert s.level("rejects-valid") == "error" and s.level("weak-assertion") == "information"


def test_each_wrong_value_falls_back_alone():
    parsed = parse_settings({"runOn": "never", "debounceMs": -5, "reveal": "counts", "timeoutSeconds": "x",
                             "severity": {"rejects-valid": "loud", "misses-baseline": "error", "bogus": "hint"},
                             "colour": 1})
    s = parsed.settings
    assert (s.run_on, s.debounce_ms, s.reveal, s.timeout_seconds) == ("type", 400, "counts", None)
    assert s.level("rejects-valid") == "warning" and s.level("misses-baseline") == "error"
    assert len(parsed.problems) == 4 and sorted(parsed.unknown) == ["colour", "severity.bogus"]


def test_nested_prism_section_and_garbage():
    assert parse_settings({"prism": {"runOn": "save"}}).settings.run_on == "save"
    assert parse_settings("nonsense").problems and parse_settings(None).problems == []


def test_task_reveal_is_never_loosened():
    assert Settings(reveal="full").effective_reveal("counts") == "counts"
    assert Settings(reveal="counts").effective_reveal("full") == "counts"
    assert Settings(reveal="labels").effective_reveal("full") == "labels"

"""Settings parsing: defaults, the VS Code fixture, wrong values and unknown keys."""

from __future__ import annotations

import json

from prism_lsp.server.settings import DEFAULT_SEVERITY, Settings, SettingsLayers, parse_settings
from tests.server.harness import INIT_OPTIONS


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
    parsed = parse_settings(
        {
            "runOn": "never",
            "debounceMs": -5,
            "reveal": "counts",
            "timeoutSeconds": "x",
            "severity": {"rejects-valid": "loud", "misses-baseline": "error", "bogus": "hint"},
            "colour": 1,
        }
    )
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


def test_empty_or_null_workspace_configuration_keeps_the_initialization_options():
    layers = SettingsLayers()
    layers.set_initialization({"reveal": "counts", "severity": {"rejects-valid": "error"}})
    for answer in ({}, None, {"prism": {}}):
        parsed = layers.update_workspace(answer)
        assert parsed.problems == [] and parsed.settings.reveal == "counts"
        assert parsed.settings.level("rejects-valid") == "error"


def test_a_partial_change_changes_only_the_keys_it_names():
    layers = SettingsLayers()
    layers.set_initialization(
        {"reveal": "counts", "runOn": "save", "severity": {"rejects-valid": "error", "weak-assertion": "information"}}
    )
    s = layers.update_workspace({"prism": {"severity": {"accepts-invalid": "hint"}}}).settings
    assert (s.reveal, s.run_on) == ("counts", "save")
    assert (s.level("rejects-valid"), s.level("weak-assertion"), s.level("accepts-invalid")) == (
        "error",
        "information",
        "hint",
    )
    s = layers.update_workspace({"reveal": "labels"}).settings
    assert (s.reveal, s.run_on, s.level("accepts-invalid")) == ("labels", "save", "hint")


def test_workspace_configuration_wins_over_initialization_options_whatever_the_order():
    layers = SettingsLayers()
    layers.update_workspace({"reveal": "labels"})
    assert layers.set_initialization({"reveal": "counts", "debounceMs": 10}).settings.reveal == "labels"
    assert layers.settings.debounce_ms == 10


def test_a_wrong_value_keeps_the_previous_value_and_says_which():
    layers = SettingsLayers()
    layers.set_initialization({"reveal": "counts", "severity": {"rejects-valid": "error"}})
    parsed = layers.update_workspace({"reveal": "sideways", "severity": {"rejects-valid": "loud"}, "colour": 1})
    assert parsed.settings.reveal == "counts" and parsed.settings.level("rejects-valid") == "error"
    assert (
        len(parsed.problems) == 2 and 'using "counts"' in parsed.problems[0] and 'using "error"' in parsed.problems[1]
    )
    assert parsed.unknown == ["colour"]
    assert "keeping the current" in layers.update_workspace("nonsense").problems[0]
    assert layers.settings.reveal == "counts"


def test_numbers_must_be_json_numbers():
    parsed = parse_settings({"debounceMs": True, "timeoutSeconds": "5"})
    assert (parsed.settings.debounce_ms, parsed.settings.timeout_seconds) == (400, None)
    assert len(parsed.problems) == 2 and "debounceMs: True is not valid" in parsed.problems[0]
    assert parse_settings({"debounceMs": 0, "timeoutSeconds": 2.5}).problems == []


def test_sealed_is_a_setting_and_the_strictest():
    assert parse_settings({"reveal": "sealed"}).settings.reveal == "sealed"
    assert Settings(reveal="full").effective_reveal("sealed") == "sealed"
    assert Settings(reveal="sealed").effective_reveal("labels") == "sealed"
    assert "sealed" in parse_settings({"reveal": "hidden"}).problems[0]  # the error lists the levels

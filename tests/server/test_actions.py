"""Code actions without LSP transport: ignore edits (honoured by the next check), candidate and run commands."""

from __future__ import annotations

import dataclasses

from lsprotocol import types

from prism_lsp.analysis.ignores import ignored_kinds
from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.server.actions import RUN_PANEL, SHOW_CANDIDATE, build_actions
from prism_lsp.server.diagnostics import Options, build_diagnostics
from prism_lsp.server.positions import Lines
from prism_lsp.server.settings import Settings
from tests.document.recorded import TEXT, at_reveal

URI = "file:///suite/test_unit_buffer.py"


def _apply(text: str, edit: types.TextEdit, encoding: str) -> str:
    lines = text.split("\n")
    line = edit.range.start.line
    end = Lines(text, encoding).char_index(line + 1, edit.range.end.character)
    assert edit.range.start.character == 0 and edit.range.end.line == line
    lines[line] = edit.new_text + lines[line][end:]
    return "\n".join(lines)


def _rejects_valid(check, encoding="utf-16"):
    return [d for d in build_diagnostics(check, Settings(), Options(encoding=encoding)) if d.code == "rejects-valid"]


def test_ignore_goes_on_the_last_line_of_a_multi_line_assert_and_is_honoured(unit_check):
    diag = _rejects_valid(unit_check)[0]
    actions = build_actions(URI, 7, Lines(TEXT), [diag], in_task=True)
    ignore = actions[0]
    assert ignore.title == "Ignore `rejects-valid` on this line" and ignore.kind == types.CodeActionKind.QuickFix
    (edit,) = ignore.edit.changes[URI]
    assert edit.range == types.Range(types.Position(10, 0), types.Position(10, 10))
    assert edit.new_text == "    ) == 3  # prism: ignore[rejects-valid]"
    assert ignore.edit.document_changes[0].text_document.version == 7
    text = _apply(TEXT, edit, "utf-16")
    again = dataclasses.replace(unit_check, text=text, suite_map=parse_suite(text), ignores=ignored_kinds(text))
    assert [d.range.start.line for d in _rejects_valid(again)] == [22]


def test_ignore_edit_replaces_a_whole_non_ascii_line_in_the_clients_units(unit_check):
    for encoding, end in [("utf-16", 53), ("utf-8", 58)]:
        diag = _rejects_valid(unit_check, encoding)[-1]
        (edit,) = build_actions(URI, 1, Lines(TEXT, encoding), [diag], in_task=True)[0].edit.changes[URI]
        assert edit.range.end == types.Position(22, end)
        text = _apply(TEXT, edit, encoding)
        assert (
            text.splitlines()[22]
            == '    label = "é€𝄞"; assert mean_rounded([7, 10]) == 9  # prism: ignore[rejects-valid]'
        )


def test_full_reveal_offers_each_candidate_once_then_run_panel(unit_check):
    diags = _rejects_valid(unit_check)
    actions = build_actions(URI, 1, Lines(TEXT), diags, in_task=True)
    commands = [(a.title, a.command, a.arguments) for a in actions if isinstance(a, types.Command)]
    assert commands == [
        ("Show candidate `half-even`", SHOW_CANDIDATE, [URI, "half-even"]),
        ("Show candidate `half-down`", SHOW_CANDIDATE, [URI, "half-down"]),
        ("Show candidate `statistics`", SHOW_CANDIDATE, [URI, "statistics"]),
        ("Run panel now", RUN_PANEL, [URI]),
    ]
    assert [a.title for a in actions if isinstance(a, types.CodeAction)] == ["Ignore `rejects-valid` on this line"] * 2


def test_below_full_no_candidate_is_offered(unit_check):
    for reveal in ("labels", "counts"):
        diags = build_diagnostics(at_reveal(unit_check, reveal), Settings())
        titles = [a.title for a in build_actions(URI, 1, Lines(TEXT), diags, in_task=True)]
        assert titles and not [t for t in titles if t.startswith("Show candidate")]
        assert titles[-1] == "Run panel now"


def test_other_sources_are_ignored_and_no_task_means_no_run(unit_check):
    foreign = types.Diagnostic(
        range=types.Range(types.Position(4, 4), types.Position(4, 10)), message="x", source="ruff", code="E501"
    )
    assert build_actions(URI, 1, Lines(TEXT), [foreign], in_task=False) == []


def test_clients_without_code_action_literals_get_commands_only(unit_check):
    from lsprotocol.converters import get_converter

    from prism_lsp.server.actions import APPLY_EDIT

    diags = _rejects_valid(unit_check)[:1]
    actions = build_actions(URI, 7, Lines(TEXT), diags, in_task=True, literals=False)
    assert all(isinstance(a, types.Command) for a in actions)
    ignore = actions[0]
    assert ignore.title == "Ignore `rejects-valid` on this line" and ignore.command == APPLY_EDIT
    edit = get_converter().structure(ignore.arguments[0], types.WorkspaceEdit)
    literal = build_actions(URI, 7, Lines(TEXT), diags, in_task=True)[0]
    assert get_converter().unstructure(edit) == get_converter().unstructure(literal.edit)
    without = build_actions(URI, 7, Lines(TEXT), diags, in_task=True, literals=False, apply_edit=False)
    assert [a.title for a in without] == [a.title for a in actions[1:]]

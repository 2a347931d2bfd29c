"""End to end: settings from initializationOptions, didChangeConfiguration and workspace/configuration;
reveal levels; ignore comments; files outside any task."""

from __future__ import annotations

import json
import re

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.harness import CACHE, FIXTURES, init_params, of_kind, open_doc, replace_all, server_config

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
CANDIDATE_IDS = [
    m
    for m in re.findall(r'^id = "([^"]+)"', (FIXTURES / "mean-rounded" / "prism.toml").read_text(), re.M)
    if m not in ("mean-rounded", "reference")
]  # `reference` is also an ordinary word/key


def _leaks(text: str) -> list[str]:
    return [cid for cid in CANDIDATE_IDS if re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", text)]


async def test_vscode_initialization_options_are_honoured(vscode_client):
    """The shared fixture: runOn save, reveal labels, severities rejects-valid=error, sandbox none."""
    client, rec = vscode_client, vscode_client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1, "rejects-valid")
    (rv,) = of_kind(diags, "rejects-valid")
    assert rv.severity == types.DiagnosticSeverity.Error
    assert all(d.severity == types.DiagnosticSeverity.Warning for d in of_kind(diags, "accepts-invalid"))
    assert "3 valid candidates" in rv.message and not _leaks(json.dumps([d.message for d in diags]))
    assert all(not d.related_information for d in diags)
    # runOn = save: an edit publishes only the static diagnostics, the save runs the panel.
    text = OVERFIT.read_text().replace("== 3", "in (2, 3)")
    replace_all(client, uri, 2, text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    diags = await rec.final_diagnostics(uri, 2, "rejects-valid")
    assert not of_kind(diags, "rejects-valid")
    # static hints at open, the run; static hints on the edit; static hints then the run on save
    assert rec.versions(uri) == [1, 1, 2, 2, 2]


@pytest.mark.settings({"reveal": "counts", "debounceMs": 0})
async def test_reveal_counts_leaks_no_candidate_id(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1, "rejects-valid")
    # Whole-suite numbers only (issue 21): no finding of a candidate's run on any line.
    assert not of_kind(diags, "rejects-valid") and not of_kind(diags, "accepts-invalid")
    seen = [d.message for d in diags] + [str(d.data) for d in diags] + [str(d.related_information) for d in diags]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(13, 10))
    )
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    rows = await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.listCandidates", [uri]))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(13, 0), types.Position(13, 10)),
            types.CodeActionContext(diagnostics=diags),
        )
    )
    seen += [
        hover.contents.value,
        *(lens.command.title for lens in lenses),
        json.dumps(rows),
        *(a.title for a in actions),
        json.dumps(rec.statuses),
    ]
    assert not _leaks("\n".join(seen))
    assert hover.contents.value.startswith("- initial program: fail\n- candidates: whole-suite numbers only")
    assert lenses[0].command.title == "Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 3/5"
    assert all(lens.command.title.startswith("initial: ") and "valid" not in lens.command.title for lens in lenses[1:])
    assert [r["id"] for r in rows] == [f"candidate-{i}" for i in range(1, 11)]
    assert all(r["label"] is None and r["note"] is None and r["uri"] is None for r in rows)
    with pytest.raises(Exception, match="not revealed"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams("prism.showCandidate", [uri, "half-even"])
        )


async def test_ignore_action_inserts_comment_and_is_honoured(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    diags = await rec.final_diagnostics(uri, 1, "rejects-valid")
    (rv,) = of_kind(diags, "rejects-valid")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rv.range, types.CodeActionContext(diagnostics=[rv]))
    )
    ignore = next(a for a in actions if a.title == "Ignore `rejects-valid` on this line")
    (edit,) = ignore.edit.changes[uri]
    lines = OVERFIT.read_text().splitlines(keepends=True)
    assert (
        edit.range.start.line == 13
        and edit.new_text == "    assert mean_rounded([1, 4]) == 3  # prism: ignore[rejects-valid]"
    )
    lines[13] = edit.new_text + "\n"
    replace_all(client, uri, 2, "".join(lines))
    diags = await rec.final_diagnostics(uri, 2, "rejects-valid")
    assert not of_kind(diags, "rejects-valid") and of_kind(diags, "accepts-invalid")


async def test_file_outside_any_task_gets_static_hints_and_one_message(client, tmp_path):
    rec = client.recorder
    weak = tmp_path / "test_loose.py"
    weak.write_text("from m import f\n\n\ndef test_type():\n    assert isinstance(f(3), int)\n")
    uri = open_doc(client, weak)
    diags = await rec.final_diagnostics(uri, 1, "weak-assertion")
    (hint,) = of_kind(diags, "weak-assertion")
    assert hint.severity == types.DiagnosticSeverity.Hint and hint.range.start.line == 4
    other = open_doc(client, tmp_path / "test_loose.py", version=1) if False else None
    second = tmp_path / "test_other.py"
    second.write_text("def test_nothing():\n    pass\n")
    uri2 = open_doc(client, second)
    await rec.final_diagnostics(uri2, 1, "weak-assertion")
    infos = [m for m in client.messages if "prism.toml" in m.message]
    assert len(infos) == 1 and infos[0].type == types.MessageType.Info
    assert [s["state"] for s in rec.statuses if s["uri"] == uri] == ["no-task"]
    del other


async def test_configuration_change_and_bad_values(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    published = len(rec.publications)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"prism": {"severity": {"rejects-valid": "hint"}, "reveal": "sideways", "colour": "blue"}}
        )
    )
    pub = await rec.until(
        lambda: next(
            (p for p in rec.publications[published:] if p.uri == uri and of_kind(list(p.diagnostics), "rejects-valid")),
            None,
        )
    )
    assert of_kind(list(pub.diagnostics), "rejects-valid")[0].severity == types.DiagnosticSeverity.Hint
    warnings = [m for m in client.messages if m.type == types.MessageType.Warning]
    assert len(warnings) == 1 and "prism.reveal" in warnings[0].message and '"full"' in warnings[0].message
    assert any("colour" in m.message for m in client.log_messages)


async def test_workspace_configuration_is_pulled(client):
    """didChangeConfiguration without a payload makes the server ask workspace/configuration."""
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    published = len(rec.publications)
    client.set_configuration({"reveal": "labels", "severity": {"rejects-valid": "error"}}, section="prism")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    pub = await rec.until(
        lambda: next(
            (p for p in rec.publications[published:] if p.uri == uri and of_kind(list(p.diagnostics), "rejects-valid")),
            None,
        )
    )
    (rv,) = of_kind(list(pub.diagnostics), "rejects-valid")
    assert rv.severity == types.DiagnosticSeverity.Error and "half-even" not in rv.message


@pytest_lsp.fixture(config=server_config(CACHE))
async def empty_section_client(lsp_client: LanguageClient):
    """reveal = labels in initializationOptions; the client answers workspace/configuration with `{}`."""
    lsp_client.set_configuration({}, section="prism")
    await lsp_client.initialize_session(init_params({"reveal": "labels", "debounceMs": 0}))
    yield
    await lsp_client.shutdown_session()


async def test_an_empty_configuration_answer_keeps_the_initialization_options(empty_section_client):
    client, rec = empty_section_client, empty_section_client.recorder
    assert await rec.until(lambda: rec.configuration_answers or None) == [[{}]]
    uri = open_doc(client, OVERFIT)  # sent after the answer: the server has applied it first
    diags = await rec.final_diagnostics(uri, 1, "rejects-valid")
    assert of_kind(diags, "rejects-valid") and "3 valid candidates" in of_kind(diags, "rejects-valid")[0].message
    assert not _leaks(json.dumps([d.message for d in diags]))


@pytest.mark.settings({"reveal": "labels", "debounceMs": 0})
async def test_a_partial_configuration_change_keeps_the_other_settings(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1, "rejects-valid")
    published = len(rec.publications)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"prism": {"severity": {"accepts-invalid": "hint"}}})
    )
    pub = await rec.until(
        lambda: next(
            (
                p
                for p in rec.publications[published:]
                if p.uri == uri
                and any(
                    d.code == "accepts-invalid" and d.severity == types.DiagnosticSeverity.Hint for d in p.diagnostics
                )
            ),
            None,
        )
    )
    assert of_kind(list(pub.diagnostics), "rejects-valid")
    assert not _leaks(json.dumps([d.message for d in pub.diagnostics])), "reveal is still labels"

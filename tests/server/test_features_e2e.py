"""End to end: code lens, hover, code actions, commands, progress and `prism/status`."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from tests.server.harness import FIXTURES, of_kind, open_doc

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
HALFWAY_LINE = 14  # 1-based: `assert mean_rounded([1, 4]) == 3`


async def _opened(client):
    uri = open_doc(client, OVERFIT)
    diags = await client.recorder.final_diagnostics(uri, 1, "rejects-valid")
    return uri, diags


async def test_code_lenses_per_test_and_for_the_file(client):
    uri, _ = await _opened(client)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    titles = {lens.range.start.line: lens.command.title for lens in lenses}
    assert (
        titles[0] == "Prism: JSF ✗ · RAR ✓ · valid 1/4 besides the reference · invalid 3/5"
    )  # the reference counts in RAR
    assert (
        titles[12] == "initial: caught · valid 1/4 besides the reference · invalid 2/5 · reaches 2 of 2 changed lines"
    )  # test_halfway: forgets-last, median; the lens ends with the reach of the change
    assert (
        titles[3] == "initial: missed · valid 4/4 besides the reference · invalid 1/5 · reaches 2 of 2 changed lines"
    )  # test_whole_mean
    assert all(lens.command.command == "prism.runPanel" and list(lens.command.arguments) == [uri] for lens in lenses), (
        lenses[0]
    )


async def test_hover_on_an_assertion_shows_each_program_there(client):
    uri, _ = await _opened(client)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(HALFWAY_LINE - 1, 10))
    )
    table = hover.contents.value
    assert "| program | label | outcome | value |" in table
    assert "| `half-even` | valid | fail ✗ | `assert 2 == 3` |" in table
    assert "| `reference` | valid (reference) | pass ✓ |" in table
    assert "| initial | baseline | fail ✗ |" in table
    nothing = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, 0))
    )
    assert nothing is None


async def test_code_actions_and_show_candidate(client):
    uri, diags = await _opened(client)
    (rv,) = of_kind(diags, "rejects-valid")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rv.range, types.CodeActionContext(diagnostics=[rv]))
    )
    titles = [a.title for a in actions]
    assert "Ignore `rejects-valid` on this line" in titles
    assert {"Show candidate `half-even`", "Show candidate `half-down`", "Show candidate `statistics`"} <= set(titles)
    assert titles[-1] == "Run panel now"
    show = next(a for a in actions if a.title == "Show candidate `half-even`")
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(show.command, show.arguments))
    path = Path(to_fs_path(result["uri"]))
    assert path.is_file() and path.name == "solution.py" and "Fraction" in path.read_text()
    assert client.shown_documents and client.shown_documents[-1].uri == result["uri"]


async def test_list_candidates_full(client):
    uri, _ = await _opened(client)
    rows = await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.listCandidates", [uri]))
    assert [r["id"] for r in rows][:2] == ["reference", "half-even"]
    ref = rows[0]
    assert ref["label"] == "valid" and ref["reference"] is True and "half up" in ref["note"]
    assert Path(to_fs_path(ref["uri"])).is_file()


async def test_run_panel_command_progress_and_status(client):
    uri, _ = await _opened(client)
    rec = client.recorder
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.runPanel", [uri]))
    assert answer["state"] == "idle" and answer["metrics"]["jsf"] is False
    assert answer["valid"] == {"accepted": 1, "total": 4} and answer["invalid"] == {"rejected": 3, "total": 5}
    # the words the lenses use, for a status bar to show as they are (issue 23 item 7)
    assert answer["summary"] == "valid 1/4 besides the reference · invalid 3/5"
    assert answer["message"] == "0 test(s) run, 3 from cache"  # said, not silent, when nothing had to run
    ours = [s for s in rec.statuses if s["uri"] == uri]
    running = [s for s in ours if s["state"] == "running"]
    assert running and running[-1]["done"] == running[-1]["total"] == 11
    assert ours[-1]["state"] == "idle" and ours[-1]["metrics"]["rar"] is True
    kinds = [v.kind for reports in client.progress_reports.values() for v in reports]
    assert kinds.count("begin") >= 1 and kinds.count("end") == kinds.count("begin") and "report" in kinds

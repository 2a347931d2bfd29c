"""End to end: a client that says the folder is not trusted (`staticOnly`) gets static hints and nothing else.

VS Code's Restricted Mode: the extension starts the server with `staticOnly: true`; no panel
run, no candidate view, no task offer until it sends `staticOnly: false` (the folder trusted).
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.harness import FIXTURES, of_kind, open_doc

WEAK = FIXTURES / "mean-rounded" / "suites" / "test_weak.py"
OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


@pytest.mark.settings({"debounceMs": 0, "staticOnly": True})
async def test_an_untrusted_folder_gets_static_hints_and_no_run_until_trusted(client):
    rec = client.recorder
    uri = open_doc(client, WEAK)
    diags = await rec.final_diagnostics(uri, 1)
    assert of_kind(diags, "weak-assertion"), "the static hint is shown"
    assert not of_kind(diags, "accepts-invalid") and not of_kind(diags, "execution-error")
    (status,) = [s for s in rec.statuses if s["uri"] == uri]  # no "running": nothing ran
    assert status["state"] == "idle" and status["metrics"] is None
    assert "not trusted" in status["message"]
    for command in (["prism.showCandidate", [uri, "half-even"]], ["prism.listCandidates", [uri]]):
        with pytest.raises(Exception, match="not trusted"):
            await client.workspace_execute_command_async(types.ExecuteCommandParams(*command))

    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"prism": {"staticOnly": False}})
    )
    await rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"] is not None), None))
    diags = await rec.final_diagnostics(uri, 1)
    assert of_kind(diags, "accepts-invalid"), "trusted: the panel ran"


@pytest.mark.settings({"debounceMs": 0, "staticOnly": True})
async def test_run_panel_in_an_untrusted_folder_says_why_nothing_ran(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1)
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.runPanel", [uri]))
    assert answer["metrics"] is None and "not trusted" in answer["message"]
    assert not [s for s in rec.statuses if s["state"] == "running"]

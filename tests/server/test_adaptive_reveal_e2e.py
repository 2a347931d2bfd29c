"""The real server (pytest-lsp over stdio) against the adaptive author of issue 21, and at `sealed`.

At `counts` what the editor shows (diagnostics, hovers, lenses, statuses, the Test Explorer's
programs) is the same whichever test flags which candidate: no line, test or assertion of a
candidate's run. At `sealed` only the initial program's outcome and the static hints.
"""

from __future__ import annotations

import json

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from tests.server.harness import FAST, open_doc
from tests.surface.buckets import bucket_task, write_suites

ASSERTS = [7 + 4 * k for k in range(256)]  # 0-based line of test k's assert


async def _shown(client, uri: str) -> dict:
    """Everything the editor shows of the last check of `uri`, but the initial program's own results."""
    rec = client.recorder
    diags = await rec.final_diagnostics(uri, 1)
    hovers = []
    for line in ASSERTS[::16] + ASSERTS[-1:]:
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 8))
        )
        hovers.append(hover.contents.value if hover is not None else None)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    statuses = [{k: v for k, v in s.items() if k not in ("uri", "message")} for s in rec.statuses if s["uri"] == uri]
    return {
        "diagnostics": json.loads(json.dumps(default_converter().unstructure(diags))),
        "hovers": hovers,
        "lenses": [lens.command.title for lens in lenses if lens.command],
        "status": statuses[-1],
    }


@pytest.mark.settings({**FAST, "reveal": "counts"})
async def test_at_counts_the_editor_shows_the_same_whichever_test_flags_which_candidate(client, tmp_path):
    task = bucket_task(tmp_path / "task")
    shown = [await _shown(client, open_doc(client, suite)) for suite in write_suites(task)]
    for got in shown:
        assert got["diagnostics"] == []  # the initial program fails; no finding of a candidate's run
        assert set(got["hovers"]) <= {
            "- initial program: pass\n- candidates: whole-suite numbers only at this "
            "reveal level\n\n_Prism — outcome at this assertion_",
            "- initial program: fail\n- candidates: whole-suite numbers only at this "
            "reveal level\n\n_Prism — outcome at this assertion_",
        }
        assert got["lenses"][0] == "Prism: JSF ✗ · RAR ✗ · valid 0/2 besides the reference · invalid 3/3"
        assert got["status"]["valid"] == {"accepted": 0, "total": 2}
    # The hovers and test lenses on the initial program's own failing test differ (it is no secret);
    # everything a candidate's run decides is the same.
    for got in shown:
        got["hovers"] = sorted(h.split("\n", 1)[1] for h in got["hovers"])
        got["lenses"] = sorted(set(got["lenses"][1:])) + got["lenses"][:1]
    assert shown[0] == shown[1]


@pytest.mark.settings({**FAST, "reveal": "sealed"})
async def test_at_sealed_the_editor_shows_the_initial_outcome_and_the_static_hints(client, tmp_path):
    task = bucket_task(tmp_path / "task")
    weak = task / "test_weak.py"
    weak.write_text("from solution import add\n\n\ndef test_add():\n    assert isinstance(add(2, 2), int)\n")
    uri = open_doc(client, weak)
    got = await _shown(client, uri)
    assert sorted(d["code"] for d in got["diagnostics"]) == ["misses-baseline", "weak-assertion"]
    assert got["lenses"] == ["Prism: sealed · initial: missed", "initial: missed"]
    assert got["status"]["metrics"] is None and got["status"]["valid"] is None and got["status"]["invalid"] is None
    programs = await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.listCandidates", [uri]))
    assert programs == []

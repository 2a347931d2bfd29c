"""End to end: a document's first run shows what the initial program and the reference say before the
whole panel's findings, so a cold first result comes after one program's time, not the panel's.

Only the first run of a document, only at `full` (below it, candidates go by names given over the
whole panel, and findings on a one-candidate panel would tell which one is the reference).
"""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.harness import FAST, FIXTURES, edit_line, of_kind, open_doc

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"
PROGRAMS = 11  # mean-rounded: the initial program and ten candidates


def _log(rec, uri: str) -> list[tuple[str, object]]:
    """("pub", diagnostics) and ("status", payload) for `uri`, in arrival order."""
    out: list[tuple[str, object]] = []
    for _seq, item in rec.log:
        if isinstance(item, types.PublishDiagnosticsParams) and item.uri == uri:
            out.append(("pub", list(item.diagnostics)))
        elif isinstance(item, dict) and item.get("uri") == uri:
            out.append(("status", item))
    return out


def _codes(diags) -> list[str]:
    return sorted(str(d.code) for d in diags)


# test_halfway rejects half-even (a candidate); test_half_down rejects the reference itself.
HALF_DOWN = OVERFIT.read_text() + "\n\ndef test_half_down():\n    assert mean_rounded([1, 4]) == 2\n"
HALF_DOWN_LINE = HALF_DOWN.splitlines().index("    assert mean_rounded([1, 4]) == 2")


def _rejects(diags, line0: int) -> list[str]:
    return [str(d.code) for d in diags if d.code == "rejects-valid" and d.range.start.line == line0]


@pytest.mark.settings({**FAST, "debounceMs": 0})
async def test_the_first_run_publishes_the_initial_and_reference_findings_before_the_panels(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT, HALF_DOWN)
    final = await rec.final_diagnostics(uri, 1)
    log = _log(rec, uri)
    pubs = [i for i, (what, _) in enumerate(log) if what == "pub"]
    assert len(pubs) == 3, [_codes(log[i][1]) for i in pubs]  # static, initial + reference, the panel
    static, ahead, panel = (log[i][1] for i in pubs)
    assert panel == final
    assert not of_kind(static, "rejects-valid")
    # Ahead of the panel: the reference's rejection, not yet half-even's (a candidate's).
    assert _rejects(ahead, HALF_DOWN_LINE) and not _rejects(ahead, 13)
    assert _rejects(final, HALF_DOWN_LINE) and _rejects(final, 13)
    # Between them, the status says two programs are in, and the check is still running.
    between = [item for what, item in log[pubs[1] : pubs[2]] if what == "status"]
    assert any(s["state"] == "running" and (s["done"], s["total"]) == (2, PROGRAMS) for s in between), between


@pytest.mark.settings({**FAST, "debounceMs": 0, "reveal": "labels"})
async def test_below_full_the_first_publication_after_the_static_one_is_the_panels(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    final = await rec.final_diagnostics(uri, 1)
    pubs = [item for what, item in _log(rec, uri) if what == "pub"]
    assert len(pubs) == 2 and pubs[-1] == final and of_kind(final, "rejects-valid")


@pytest.mark.settings({**FAST, "debounceMs": 0})
async def test_a_later_run_publishes_once_the_panel_is_in(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await rec.final_diagnostics(uri, 1)
    edit_line(client, uri, 2, 13, "    assert mean_rounded([1, 4]) == 3", "    assert mean_rounded([4, 1]) == 3")
    final = await rec.final_diagnostics(uri, 2)
    v2 = [p for p in rec.publications if p.uri == uri and p.version == 2]
    # The panel's alone: the static one before it (findings kept) equals what the editor shows, so it is
    # not sent again (`PrismServer.publish_diagnostics`); no first-result publication comes between.
    assert len(v2) == 1 and of_kind(final, "rejects-valid")

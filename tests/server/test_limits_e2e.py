"""The real server given hostile documents: too large, nested too deeply. One clear "not run: ..."
as a diagnostic and in the status; no panel run, no crash, and the server keeps serving."""

from __future__ import annotations

from tests.server.harness import open_doc
from tests.surface.forger import SUITE, forger_task
from tests.surface.hostile_suites import deep as _deep
from tests.surface.hostile_suites import many_tests as _many_tests


async def test_a_document_too_large_and_one_nested_too_deeply(client, tmp_path):
    rec = client.recorder
    task = forger_task(tmp_path / "task")
    cases = [
        ("test_big.py", _many_tests(1_500_000), "not run: the document is too large (1.5 > 1.0 MB)"),
        ("test_deep.py", _deep(20_000), "not run: the document nests code more than 500 levels deep (line 5)"),
    ]
    for name, text, message in cases:
        uri = open_doc(client, task / name, text)
        diags = await rec.final_diagnostics(uri, 1)
        assert [d.message for d in diags] == [message]
        ours = [s for s in rec.statuses if s["uri"] == uri]
        assert ours[-1]["state"] == "idle" and ours[-1]["message"] == message
        assert not any(s["state"] == "running" for s in ours), "nothing runs"
    # Still serving: the task's real suite runs as usual.
    uri = open_doc(client, task / SUITE)
    diags = await rec.final_diagnostics(uri, 1)
    assert any(d.code == "rejects-valid" for d in diags)

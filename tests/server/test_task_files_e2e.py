"""End to end: when a task's files change (Build Panel wrote candidates, prism.toml was edited), the
open suites of that task run again, without a keystroke or "Run Panel"."""

from __future__ import annotations

import shutil

from lsprotocol import types

from tests.server.harness import FIXTURES, open_doc


async def test_an_edit_of_prism_toml_reruns_the_open_suite(client, tmp_path):
    rec = client.recorder
    task = tmp_path / "mean-rounded"
    shutil.copytree(FIXTURES / "mean-rounded", task)
    uri = open_doc(client, task / "suites" / "test_overfit.py")
    first = await rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"]), None))
    assert first["invalid"]["total"] == 5
    (watch,) = [r for r in rec.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = [
        w["globPattern"] if isinstance(w, dict) else w.glob_pattern
        for w in (
            watch.register_options["watchers"]
            if isinstance(watch.register_options, dict)
            else watch.register_options.watchers
        )
    ]
    assert {"**/prism.toml", "**/candidates/**"} <= set(globs)
    manifest = task / "prism.toml"
    text = manifest.read_text()
    manifest.write_text(text[: text.rindex("[[candidate]]")])  # the last invalid candidate, `ceiling`, goes
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=manifest.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    again = await rec.until(
        lambda: next(
            (s for s in rec.statuses[rec.statuses.index(first) + 1 :] if s["uri"] == uri and s["metrics"]), None
        )
    )
    assert again["invalid"]["total"] == 4


async def test_a_change_in_another_task_reruns_nothing(client, tmp_path):
    rec = client.recorder
    for name in ("mean-rounded", "slugify"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    uri = open_doc(client, tmp_path / "mean-rounded" / "suites" / "test_overfit.py")
    await rec.until(lambda: next((s for s in rec.statuses if s["uri"] == uri and s["metrics"]), None))
    seen = len(rec.statuses)
    other = (tmp_path / "slugify" / "prism.toml").as_uri()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=other, type=types.FileChangeType.Changed)])
    )
    # A request after the notification is answered after it was handled (one connection, in order).
    await client.workspace_execute_command_async(types.ExecuteCommandParams("prism.listCandidates", [uri]))
    assert not [s for s in rec.statuses[seen:] if s["uri"] == uri]

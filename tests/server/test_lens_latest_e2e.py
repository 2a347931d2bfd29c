"""End to end: the code lenses say what the status bar says, from the same latest run.

After a rerun the user did not type (the task's files changed: Build Panel, an edit of
prism.toml) the server asks the client to fetch the lenses again, and they hold the status's
counts; while the buffer cannot run (a syntax error) both show the last run's counts, marked;
an ImportError is a collection error, in the lens as in the status, with no verdict.
"""

from __future__ import annotations

import shutil

import pytest
from lsprotocol import types

from tests.server.harness import FIXTURES, open_doc, replace_all

OVERFIT = FIXTURES / "mean-rounded" / "suites" / "test_overfit.py"


async def _titles(client, uri) -> list[str]:
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    return [lens.command.title for lens in lenses]


def _settled_after(rec, uri, seen: int):
    """The first settled status (not `running`) for `uri` among the statuses after the first `seen`."""
    return rec.until(
        lambda: next((s for s in rec.statuses[seen:] if s["uri"] == uri and s["state"] != "running"), None)
    )


async def test_after_the_task_changes_the_lenses_are_refreshed_with_the_status_counts(client, tmp_path):
    rec = client.recorder
    task = tmp_path / "mean-rounded"
    shutil.copytree(FIXTURES / "mean-rounded", task)
    uri = open_doc(client, task / "suites" / "test_overfit.py")
    first = await _settled_after(rec, uri, 0)
    assert (await _titles(client, uri))[0] == f"Prism: JSF ✗ · RAR ✓ · {first['summary']}"
    refreshes = rec.lens_refreshes
    manifest = task / "prism.toml"
    text = manifest.read_text()
    manifest.write_text(text[: text.rindex("[[candidate]]")])  # one invalid candidate fewer, as a rebuilt panel
    seen = len(rec.statuses)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=manifest.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    again = await _settled_after(rec, uri, seen)
    assert again["invalid"]["total"] == 4 and again["summary"].endswith("invalid 2/4")
    await rec.until(lambda: rec.lens_refreshes > refreshes or None)  # the client is told to ask again
    titles = await _titles(client, uri)
    assert titles[0] == f"Prism: JSF ✗ · RAR ✓ · {again['summary']}"
    assert all(title.split(" · ")[2].startswith("invalid ") and "/4" in title for title in titles[1:]), titles


@pytest.mark.settings({"debounceMs": 0})
async def test_during_a_syntax_error_the_lenses_show_the_last_run_marked_as_the_status_does(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    first = await _settled_after(rec, uri, 0)
    current = await _titles(client, uri)
    seen = len(rec.statuses)
    replace_all(client, uri, 2, OVERFIT.read_text() + "\ndef test_broken(:\n")
    status = await _settled_after(rec, uri, seen)
    assert status["stale"] is True and status["summary"] == first["summary"]
    titles = await _titles(client, uri)
    assert titles[0] == (
        f"Prism (last run): JSF ✗ · RAR ✓ · {first['summary']} · not run now: the buffer has a syntax error"
        f" (line {len(OVERFIT.read_text().splitlines()) + 2})"
    )
    # The tests whose text is unchanged keep their numbers, marked as the last run's.
    assert titles[1:4] == [f"{title} (last run)" for title in current[1:4]]


@pytest.mark.settings({"debounceMs": 0})
async def test_an_import_error_is_named_a_collection_error_in_the_lens_with_no_verdict(client):
    rec = client.recorder
    uri = open_doc(client, OVERFIT)
    await _settled_after(rec, uri, 0)
    # Typed in two steps, as a user does: an incomplete import (a syntax error), then a name that does not exist.
    seen = len(rec.statuses)
    replace_all(client, uri, 2, "from solution import\n\n\ndef test_it():\n    assert 1\n")
    await _settled_after(rec, uri, seen)
    seen = len(rec.statuses)
    text = "from solution import no_such_function\n\n\ndef test_it():\n    assert no_such_function([1]) == 1\n"
    replace_all(client, uri, 3, text)
    status = await _settled_after(rec, uri, seen)
    assert status["state"] == "error" and status["message"].startswith("collection error: ")
    titles = await _titles(client, uri)
    assert titles[0] == f"Prism: {status['message']}"
    assert "no_such_function" in titles[0] and "syntax error" not in titles[0]
    assert "JSF" not in titles[0] and "valid" not in titles[0]
    assert titles[1:] == ["collection error: the suite ran on no program"]

"""End to end: the editor offers "Prism: create a task from this fix" for a test file in a git
repository with no task, once per file; accepting runs `prism init` and judges the file at once."""

from __future__ import annotations

import pytest
from lsprotocol import types

from prism_lsp.repo.offer import ACTION, TITLE
from tests.repo.gitrepo import make_repo, status, write
from tests.server.harness import open_doc

BASE = {"calc.py": "def add(a, b):\n    return a - b\n"}
FIX = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def _offers(client) -> list[str]:
    """The offer's messages: each with its one button, "Create Task"."""
    requests = client.recorder.message_requests
    assert all([a.title for a in r.actions or []] == [ACTION] for r in requests)
    return [r.message for r in requests if "create a task from this fix" in r.message]


async def _settled(rec, uri: str, state: str, count: int = 1) -> None:
    await rec.until(
        lambda: True if sum(s["uri"] == uri and s["state"] == state for s in rec.statuses) >= count else None
    )


async def _lenses(client, uri: str) -> list[str]:
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    return [lens.command.title for lens in lenses]


async def test_the_offer_appears_once_and_accepting_it_makes_the_task_and_judges(client, tmp_path):
    rec = client.recorder
    repo = make_repo(tmp_path / "shop", BASE)
    write(repo, FIX)
    before = status(repo)
    uri = open_doc(client, repo / "tests" / "test_calc.py")
    await _settled(rec, uri, "no-task")
    assert len(_offers(client)) == 1
    assert await _lenses(client, uri) == [TITLE]

    # Never twice for one file: closed and opened again, edited: no second message.
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    uri = open_doc(client, repo / "tests" / "test_calc.py", version=2)
    await _settled(rec, uri, "no-task", count=2)
    assert len(_offers(client)) == 1

    # A program file of the repository gets no offer (nor its lens).
    program = open_doc(client, repo / "calc.py")
    await _settled(rec, program, "no-task")
    assert len(_offers(client)) == 1 and await _lenses(client, program) == []

    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="prism.initTask", arguments=[uri])
    )
    assert answer["suites"] == ["tests/test_calc.py"] and answer["task"] == str(repo / "prism.toml")
    await rec.until(
        lambda: next((s for s in rec.statuses if s["uri"] == uri and s["state"] == "idle" and s["metrics"]), None)
    )
    final = [s for s in rec.statuses if s["uri"] == uri and s["state"] == "idle" and s["metrics"]][-1]
    assert final["metrics"]["detects_baseline"] and final["metrics"]["rar"], final
    titles = await _lenses(client, uri)
    # A new task's panel is its reference alone: no tick, it says what it cannot judge (issue 23 item 2).
    assert titles[0].startswith("Prism: JSF ? · RAR ✓") and "cannot judge" in titles[0] and TITLE not in titles
    assert len(_offers(client)) == 1
    assert status(repo) == before


async def test_no_offer_outside_a_git_repository(client, tmp_path):
    rec = client.recorder
    (tmp_path / "test_plain.py").write_text("def test_x():\n    assert 1\n")
    uri = open_doc(client, tmp_path / "test_plain.py")
    await _settled(rec, uri, "no-task")
    assert not _offers(client) and await _lenses(client, uri) == []
    assert any("no prism.toml found above this file" in m.message for m in client.messages)


async def test_accepting_the_offer_without_a_fix_says_why_and_writes_nothing(client, tmp_path):
    rec = client.recorder
    repo = make_repo(tmp_path / "clean", {**BASE, **FIX})
    uri = open_doc(client, repo / "tests" / "test_calc.py")
    await _settled(rec, uri, "no-task")
    assert await _lenses(client, uri) == [TITLE]
    with pytest.raises(Exception, match="no task made: no change between .* and the working tree"):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="prism.initTask", arguments=[uri])
        )
    assert not (repo / "prism.toml").exists() and not (repo / ".prism").exists() and status(repo) == ""


async def test_the_offers_button_makes_the_task_and_a_dismissed_offer_is_not_shown_again(client, tmp_path):
    rec = client.recorder
    rec.click = ACTION
    repo = make_repo(tmp_path / "shop", BASE)
    write(repo, FIX)
    uri = open_doc(client, repo / "tests" / "test_calc.py")
    # "Create Task" does what the lens does: the task is made, and the file judged against it.
    await rec.until(
        lambda: next((s for s in rec.statuses if s["uri"] == uri and s["state"] == "idle" and s["metrics"]), None)
    )
    assert (repo / "prism.toml").exists() and len(_offers(client)) == 1
    assert TITLE not in await _lenses(client, uri)

    rec.click = None  # another repository: the message dismissed there
    other = make_repo(tmp_path / "other", BASE)
    write(
        other, {**FIX, "tests/test_more.py": "from calc import add\n\n\ndef test_more():\n    assert add(1, 1) == 2\n"}
    )
    first = open_doc(client, other / "tests" / "test_calc.py")
    await _settled(rec, first, "no-task")
    await rec.until(lambda: True if len(_offers(client)) == 2 else None)
    # Dismissed: the other test files of that repository keep their lens, without the message again.
    second = open_doc(client, other / "tests" / "test_more.py")
    await _settled(rec, second, "no-task")
    assert await _lenses(client, second) == [TITLE]
    assert len(_offers(client)) == 2 and not (other / "prism.toml").exists()

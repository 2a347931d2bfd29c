"""End to end: accepting the editor's offer in a repository whose committed venv Python is a script
never runs that script on the host (the venv is read, not started)."""

from __future__ import annotations

from lsprotocol import types

from tests.repo.hostile import venv_script_repo
from tests.server.harness import open_doc


async def test_accepting_the_offer_never_starts_the_repositorys_python(client, tmp_path):
    marker = tmp_path / "ran-on-the-host"
    repo = venv_script_repo(tmp_path / "repo", marker, fixed=False)
    uri = open_doc(client, repo / "tests" / "test_calc.py")
    await client.recorder.until(
        lambda: True if any(s["uri"] == uri and s["state"] == "no-task" for s in client.recorder.statuses) else None
    )
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="prism.initTask", arguments=[uri])
    )
    assert answer["task"] == str(repo / "prism.toml")
    assert not marker.exists()

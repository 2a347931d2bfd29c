"""`workspace/executeCommand`: prism.runPanel, prism.listCandidates, prism.showCandidate, prism.applyEdit,
prism.initTask.

Arguments are `[documentUri, ...]` (the VS Code client fills in the active editor's
uri). Errors come back as a JSON-RPC error with a message the user can read.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from prism_lsp.document.candidates import changed_target, list_candidates
from prism_lsp.document.standing import state_of
from prism_lsp.judge.reveal import anonymous_ids
from prism_lsp.server.status import status_params

if TYPE_CHECKING:
    from prism_lsp.server.prism_server import PrismServer

RUN_PANEL = "prism.runPanel"
LIST_CANDIDATES = "prism.listCandidates"
SHOW_CANDIDATE = "prism.showCandidate"
APPLY_EDIT = "prism.applyEdit"
INIT_TASK = "prism.initTask"


class CommandError(Exception):
    """A command that cannot be done; the message is for the user."""


def _uri(args: list[Any] | None) -> str:
    if not args or not isinstance(args[0], str):
        raise CommandError("expected the document uri as the first argument")
    return args[0]


async def run_panel(server: PrismServer, args: list[Any] | None) -> dict | None:
    """Run the panel on the buffer now; answers the status once it is published."""
    uri = _uri(args)
    task = server.check_now(uri, "command")
    if task is None:
        raise CommandError(f"{uri} is not open")
    await asyncio.wait({task})
    check = server.checked(uri)
    if check is None:
        return None
    state, message = state_of(check)  # says when the answer came from the cache
    return status_params(uri, state, check, message=message)


def refuse_static_only(server: PrismServer) -> None:
    """Nothing of the panel is read or made while the client says the folder is not trusted."""
    from prism_lsp.server.prism_server import STATIC_ONLY

    if server.settings.static_only:
        raise CommandError(f"Prism: {STATIC_ONLY}")


async def task_of(server: PrismServer, uri: str):
    """The task of the document at `uri` and the reveal level in force for it."""
    from prism_lsp.server.prism_server import uri_path

    refuse_static_only(server)

    task, problem = await asyncio.to_thread(server.checker.task_for, uri_path(uri))
    if task is None:
        raise CommandError(problem or "no prism.toml found above this file")
    return task, server.settings.effective_reveal(task.reveal)


async def list_panel(server: PrismServer, args: list[Any] | None) -> list[dict]:
    task, reveal = await task_of(server, _uri(args))
    trees = {}
    if reveal == "full":
        trees = await asyncio.to_thread(lambda: {c.id: server.checker.tree(task, c.id) for c in task.candidates})
    return list_candidates(task, reveal, trees)


async def show_candidate(server: PrismServer, args: list[Any] | None) -> dict:
    uri = _uri(args)
    task, reveal = await task_of(server, uri)
    wanted = args[1] if args and len(args) > 1 else None
    if reveal != "full":
        raise CommandError(f"the panel of {task.id} is not revealed (reveal = {reveal}): candidates cannot be shown")
    cand = task.candidate(str(wanted))
    if cand is None:
        known = ", ".join(anonymous_ids(task.candidates, reveal))
        raise CommandError(f"no candidate {wanted!r} in {task.id} (candidates: {known})")
    tree = await asyncio.to_thread(server.checker.tree, task, cand.id)
    target = changed_target(tree, cand)
    if server.supports_show_document():
        pos = types.Position(target.line, 0)
        try:
            await server.window_show_document_async(
                types.ShowDocumentParams(
                    uri=target.uri, external=False, take_focus=True, selection=types.Range(pos, pos)
                )
            )
        except Exception as exc:  # the uri is in the answer anyway
            server.log(f"window/showDocument failed: {exc!r}")
    return {"uri": target.uri}


async def apply_edit(server: PrismServer, args: list[Any] | None) -> dict:
    """The ignore action for clients without code action literals: apply its edit for them.

    The edit names the document version it was made for, so a client that takes versioned
    edits refuses it once the buffer moved on (the action was computed for that version)."""
    if not args or not isinstance(args[0], dict):
        raise CommandError("expected a workspace edit as the first argument")
    try:
        edit = get_converter().structure(args[0], types.WorkspaceEdit)
    except Exception as exc:
        raise CommandError(f"not a workspace edit: {exc}") from None
    result = await server.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="Prism"))
    return {"applied": bool(result and result.applied)}


async def init_task(server: PrismServer, args: list[Any] | None) -> dict:
    """The offer accepted: `prism init` on the file's repository, then judge the file."""
    from prism_lsp.repo.errors import InitError
    from prism_lsp.server.prism_server import uri_path

    uri = _uri(args)
    refuse_static_only(server)
    path = uri_path(uri)
    if path is None:
        raise CommandError(f"Prism: no task made: {uri} is not a file")
    try:
        result = await asyncio.to_thread(server.offers.accept, path)
    except InitError as exc:
        raise CommandError(f"Prism: no task made: {exc}") from None
    server.check_now(uri, "init")
    return {"task": str(result.root / "prism.toml"), "suites": result.suites, "notes": result.notes}


async def accept_offer(server: PrismServer, uri: str) -> None:
    """The offer's "Create Task" button: `init_task` on `uri`, its refusal shown as an error message."""
    try:
        await init_task(server, [uri])
    except CommandError as exc:
        server.window_show_message(types.ShowMessageParams(types.MessageType.Error, str(exc)))


HANDLERS = {
    RUN_PANEL: run_panel,
    LIST_CANDIDATES: list_panel,
    SHOW_CANDIDATE: show_candidate,
    APPLY_EDIT: apply_edit,
    INIT_TASK: init_task,
}

"""Custom requests about the panel: candidates as read-only documents, and the programs as test items.

`prism/programs` `{uri}` answers the document's last finished check as test items (one per
program, at the reveal level; see :mod:`prism_lsp.document.programs`); `prism/runProgram`
`{uri, program, test?}` runs the buffer's suite (or one test) on the program of one such item
and answers its item (the document's check, status and lenses stay the whole panel's); `prism/matrix` `{uri}`
its kill matrix (reveal `full` only; see :mod:`prism_lsp.document.matrix`).

`prism/candidate` `{uri, id}` answers the candidate's changed files as pairs of
`prism-candidate:` URIs (initial program, candidate) to open as diffs; `prism/candidateFile`
`{uri}` answers one such document's text. Both read the digest-verified tree cache and
need reveal `full`; anything else is a JSON-RPC error with a message for the user.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from prism_lsp.document.candidate_documents import NotShown, candidate_view, file_text, parse_uri
from prism_lsp.document.matrix import NotRevealed, kill_matrix
from prism_lsp.document.programs import NotRunAlone, one_item, program_items, program_to_run, with_witness
from prism_lsp.server.commands import CommandError, task_of

if TYPE_CHECKING:
    from prism_lsp.server.prism_server import PrismServer

CANDIDATE = "prism/candidate"
CANDIDATE_FILE = "prism/candidateFile"
PROGRAMS = "prism/programs"
RUN_PROGRAM = "prism/runProgram"
MATRIX = "prism/matrix"


def _field(params: Any, name: str) -> str:
    value = params.get(name) if isinstance(params, dict) else getattr(params, name, None)
    if not isinstance(value, str) or not value:
        raise CommandError(f"expected `{name}` (a string)")
    return value


async def candidate(server: PrismServer, params: Any) -> dict:
    uri, wanted = _field(params, "uri"), _field(params, "id")
    task, reveal = await task_of(server, uri)
    tree = await asyncio.to_thread(server.checker.tree, task, wanted) if task.candidate(wanted) else None
    try:
        return candidate_view(task, reveal, wanted, tree, uri)
    except NotShown as exc:
        raise CommandError(str(exc)) from None


async def candidate_file(server: PrismServer, params: Any) -> dict:
    try:
        target = parse_uri(_field(params, "uri"))
        task, reveal = await task_of(server, target.document)
        tree = await asyncio.to_thread(server.checker.tree, task, target.program)
        return {"text": await asyncio.to_thread(file_text, task, reveal, target, tree)}
    except NotShown as exc:
        raise CommandError(str(exc)) from None


async def programs(server: PrismServer, params: Any) -> dict:
    uri = _field(params, "uri")
    check = server.checked(uri)
    if check is None:
        return {"uri": uri, "version": None, "items": []}
    return {"uri": uri, "version": check.version, "items": program_items(check)}


async def run_program(server: PrismServer, params: Any) -> dict:
    uri, item_id = _field(params, "uri"), _field(params, "program")
    test = params.get("test") if isinstance(params, dict) else getattr(params, "test", None)
    if test is not None and not isinstance(test, str):
        raise CommandError("expected `test` (a string) or none")
    from prism_lsp.server.prism_server import uri_path

    doc = server.document(uri)
    if doc is None:
        raise CommandError(f"{uri} is not open")
    task, reveal = await task_of(server, uri)  # refuses in a folder that is not trusted
    try:
        program = program_to_run(task, reveal, item_id, test)
    except NotRunAlone as exc:
        raise CommandError(str(exc)) from None
    settings = server.settings
    base = await asyncio.to_thread(server.checker.analyze, uri_path(uri), doc[0], doc[1], settings)
    if not base.runnable:
        raise CommandError(f"Prism: not run: {base.state.reason or 'the buffer cannot run'}")
    check = await asyncio.to_thread(server.checker.run_program, base, settings, program, test)
    if check.state.kind == "failed":
        raise CommandError(f"Prism: could not run {item_id}: {check.state.reason}")
    item = one_item(check, item_id)
    if item is not None and item["kind"] == "invalid" and not item["passed"]:  # accepted: what tells it apart
        item = with_witness(item, await asyncio.to_thread(server.checker.witness, base, settings, program))
    return {"uri": uri, "version": check.version, "item": item}


async def matrix(server: PrismServer, params: Any) -> dict:
    uri = _field(params, "uri")
    check = server.checked(uri)
    if check is None:
        return {"uri": uri, "version": None, "matrix": None}
    try:
        return {"uri": uri, "version": check.version, "matrix": kill_matrix(check)}
    except NotRevealed as exc:
        raise CommandError(str(exc)) from None


HANDLERS = {
    CANDIDATE: candidate,
    CANDIDATE_FILE: candidate_file,
    PROGRAMS: programs,
    RUN_PROGRAM: run_program,
    MATRIX: matrix,
}

"""pygls wiring: every LSP handler translates protocol <-> core in a few lines.

Start with `python -m prism_lsp` (stdio) or `prism-lsp --tcp --port 8888`.
"""

from __future__ import annotations

import logging
import sys

from lsprotocol import types
from pygls.cli import start_server
from pygls.exceptions import JsonRpcInvalidParams

from prism_lsp.analysis.suite_map import SuiteMap, assertion_at_line, parse_suite
from prism_lsp.server import commands, panel_requests
from prism_lsp.server.actions import build_actions
from prism_lsp.server.hover import hover_text
from prism_lsp.server.lenses import build_lenses, offer_lens
from prism_lsp.server.positions import Lines
from prism_lsp.server.prestart import prestart, prestart_workspace
from prism_lsp.server.prism_server import PrismServer, uri_path
from prism_lsp.server.suggestions import open_dimension_note, suggestion_actions

server = PrismServer()
server.accept_offer = lambda uri: commands.accept_offer(server, uri)


def _lines(ls: PrismServer, uri: str) -> tuple[Lines, str] | None:
    doc = ls.document(uri)
    return (Lines(doc[1], ls.diagnostic_options().encoding), doc[1]) if doc else None


@server.feature(types.INITIALIZE)
def initialize(ls: PrismServer, params: types.InitializeParams) -> None:
    ls.apply_settings(params.initialization_options, initialization=True, rerun=False)


@server.feature(types.INITIALIZED)
async def initialized(ls: PrismServer, params: types.InitializedParams) -> None:
    await ls.pull_settings()
    await ls.watch_task_files()
    prestart_workspace(ls)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: PrismServer, params: types.DidChangeWatchedFilesParams) -> None:
    rerun = ls.task_files_changed([change.uri for change in params.changes])
    if rerun:
        ls.log(f"task files changed: rerunning {len(rerun)} open suite(s)")


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: PrismServer, params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings.get("prism", params.settings) if isinstance(params.settings, dict) else None
    if raw:
        ls.apply_settings(raw, rerun=True)
    else:
        await ls.pull_settings()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PrismServer, params: types.DidOpenTextDocumentParams) -> None:
    prestart(ls, uri_path(params.text_document.uri))
    ls.check_now(params.text_document.uri, "open")


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PrismServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.check_later(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: PrismServer, params: types.DidSaveTextDocumentParams) -> None:
    if ls.settings.run_on == "save":
        ls.check_now(params.text_document.uri, "save")


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: PrismServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: PrismServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    found = _lines(ls, params.text_document.uri)
    if found is None:
        return []
    check = ls.checked(params.text_document.uri)
    if (
        check is not None
        and check.task is None
        and not ls.settings.static_only
        and ls.offers.offer(check.path) is not None
    ):
        return [offer_lens(params.text_document.uri)]
    record = ls.documents.get(params.text_document.uri)
    return build_lenses(
        params.text_document.uri,
        check,
        parse_suite(found[1]),
        found[0],
        last_run=record.last_run if record is not None else None,
        build_panel=ls.supports_panel_commands(),
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: PrismServer, params: types.HoverParams) -> types.Hover | None:
    found = _lines(ls, params.text_document.uri)
    if found is None:
        return None
    markdown = ls.supports_markdown_hover()
    now = parse_suite(found[1])
    text = hover_text(ls.checked(params.text_document.uri), now, params.position.line + 1, markdown=markdown)
    note = await open_dimension_note(ls, params.text_document.uri, found[1], params.position.line + 1, markdown)
    if note:
        text = f"{text}\n\n{note}" if text else note  # the table stays first (see hover.py)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(types.MarkupContent(kind, text), range=_hover_range(found[0], now, params)) if text else None


def _hover_range(lines: Lines, now: SuiteMap, params: types.HoverParams) -> types.Range | None:
    """The whole assertion under the pointer: the hover stays up anywhere on it, not on one word."""
    assertion = assertion_at_line(now, params.position.line + 1)
    return lines.span_range(assertion.span) if assertion is not None else None


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
async def code_action(ls: PrismServer, params: types.CodeActionParams) -> list[types.CodeAction | types.Command]:
    uri = params.text_document.uri
    doc = ls.document(uri)
    if doc is None:
        return []
    check = ls.checked(uri)
    lines = Lines(doc[1], ls.diagnostic_options().encoding)
    fixes = await suggestion_actions(ls, uri, doc[0], lines, doc[1], list(params.context.diagnostics))
    return fixes + build_actions(
        uri,
        doc[0],
        lines,
        list(params.context.diagnostics),
        in_task=check is not None and check.task is not None and check.is_suite,
        literals=ls.supports_code_action_literals(),
        apply_edit=ls.supports_apply_edit(),
    )


async def _command(ls: PrismServer, name: str, args: tuple) -> object:
    try:
        return await commands.HANDLERS[name](ls, list(args))
    except commands.CommandError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


@server.command(commands.RUN_PANEL)
async def run_panel(ls: PrismServer, *args: object) -> object:
    return await _command(ls, commands.RUN_PANEL, args)


@server.command(commands.LIST_CANDIDATES)
async def list_candidates(ls: PrismServer, *args: object) -> object:
    return await _command(ls, commands.LIST_CANDIDATES, args)


@server.command(commands.SHOW_CANDIDATE)
async def show_candidate(ls: PrismServer, *args: object) -> object:
    return await _command(ls, commands.SHOW_CANDIDATE, args)


@server.command(commands.APPLY_EDIT)
async def apply_edit(ls: PrismServer, *args: object) -> object:
    return await _command(ls, commands.APPLY_EDIT, args)


@server.command(commands.INIT_TASK)
async def init_task(ls: PrismServer, *args: object) -> object:
    return await _command(ls, commands.INIT_TASK, args)


def _register_request(method: str, handler) -> None:
    """A custom request (`prism/...`): the core's answer, or a JSON-RPC error the user can read."""

    async def answer(ls: PrismServer, params: object) -> object:
        try:
            return await handler(ls, params)
        except commands.CommandError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None

    server.feature(method)(answer)


for _method, _handler in panel_requests.HANDLERS.items():
    _register_request(_method, _handler)


@server.feature(types.SHUTDOWN)
def shutdown(ls: PrismServer, params: None) -> None:
    ls.close()


def main(argv: list[str] | None = None) -> None:
    """Start the server (stdio by default; `--tcp`/`--ws` with `--host`/`--port`)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="prism-lsp %(levelname)s %(name)s: %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)
    start_server(server, argv if argv is not None else sys.argv[1:])

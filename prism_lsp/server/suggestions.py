"""Code actions from verified suggestions: "Add `assert f(x) == y` (rejects `c`; valid 5/5 still accepted)",
and the hover's note on the statement's open dimension.

LSP translation only: the suggestions come from `prism_lsp.suggest` (computed once per
buffer text, off the event loop), open inputs from `prism_lsp.witness`; both only for the
text the panel ran on, and never at reveal `counts`.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from lsprotocol import types
from lsprotocol.converters import get_converter

from prism_lsp.document.checker import requested_sandbox
from prism_lsp.engine.session import RunOptions
from prism_lsp.judge.reveal import WITNESSES_SHOWN_AT as SHOWN_AT
from prism_lsp.model.run import Suite
from prism_lsp.server.actions import APPLY_EDIT
from prism_lsp.server.diagnostics import SOURCE
from prism_lsp.server.positions import Lines

if TYPE_CHECKING:
    from prism_lsp.suggest import Suggestion
    from prism_lsp.suggest.memo import SuggestionMemo

# The suggestion and witness packages (hypothesis among them) load on the first code
# action or hover that needs them, not at server start: see bench/server_start.py.


@functools.cache
def _memo() -> SuggestionMemo:
    from prism_lsp.suggest.memo import SuggestionMemo

    return SuggestionMemo()


def _matches(s: Suggestion, diag: types.Diagnostic) -> bool:
    if diag.code != s.kind:
        return False
    # misses-baseline sits on every passing test; one witness answers them all.
    return s.kind == "misses-baseline" or diag.range.start.line + 1 == s.line


async def suggestion_actions(
    ls, uri: str, version: int | None, lines: Lines, text: str, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction | types.Command]:
    ours = [
        d
        for d in diagnostics
        if d.source == SOURCE and d.code in ("accepts-invalid", "rejects-valid", "misses-baseline")
    ]
    check = ls.checked(uri)
    if not ours or check is None or check.run is None or check.task is None or check.path is None:
        return []
    if check.reveal not in SHOWN_AT or check.text != text:
        return []  # never at counts; and an edit computed for other text would land in the wrong place
    task = check.task
    suite = Suite(task.suite_rel(check.path), check.text)
    settings = ls.settings
    options = RunOptions(
        sandbox=requested_sandbox(settings),
        timeout_s=settings.timeout_seconds,
        reveal=check.reveal,
    )
    from prism_lsp.suggest.titles import title

    found = await asyncio.to_thread(_memo().get, ls.checker.session, task, suite, check.run, options, check.reveal)
    actions: list[types.CodeAction | types.Command] = []
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    for s in found:
        diags = [d for d in ours if _matches(s, d)]
        if not diags:
            continue
        e = s.edit
        rng = types.Range(
            types.Position(e.start_line, lines.column(e.start_line + 1, e.start_col)),
            types.Position(e.end_line, lines.column(e.end_line + 1, e.end_col)),
        )
        edit = types.TextEdit(range=rng, new_text=e.new_text)
        workspace_edit = types.WorkspaceEdit(
            changes={uri: [edit]}, document_changes=[types.TextDocumentEdit(text_document=doc, edits=[edit])]
        )
        name = title(s, check.reveal)
        if ls.supports_code_action_literals():
            actions.append(
                types.CodeAction(
                    title=name,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diags,
                    edit=workspace_edit,
                    is_preferred=True,
                )
            )
        elif ls.supports_apply_edit():
            actions.append(
                types.Command(title=name, command=APPLY_EDIT, arguments=[get_converter().unstructure(workspace_edit)])
            )
    return actions


async def open_dimension_note(ls, uri: str, text: str, line: int, markdown: bool) -> str | None:
    """What the valid candidates disagree on at 1-based `line` (None: nothing, or not shown here)."""
    check = ls.checked(uri)
    if check is None or check.run is None or check.task is None or check.reveal not in SHOWN_AT or check.text != text:
        return None
    settings = ls.settings
    sandbox = requested_sandbox(settings)
    from prism_lsp.witness.open_dimension import describe, open_at_line

    found = await asyncio.to_thread(open_at_line, ls.checker.session, check.task, text, line, sandbox)
    if not found:
        return None
    notes = [describe(o) for o in found]
    return "\n".join(notes if markdown else [n.replace("`", "") for n in notes])

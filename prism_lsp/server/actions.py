"""Code actions: "Ignore `<kind>` on this line", "Show candidate `<id>`", "Run panel now".

The ignore action inserts (or extends) a `# prism: ignore[<kind>]` comment on the
diagnostic's last line; the next check honours it. Candidate actions exist only when
the panel is fully revealed (otherwise diagnostics carry no candidate ids).

A client without `codeActionLiteralSupport` understands only `Command`s: the ignore
action then becomes the `prism.applyEdit` command (the server sends the same edit with
`workspace/applyEdit`), or is left out when the client cannot apply edits either.
"""

from __future__ import annotations

from lsprotocol import types
from lsprotocol.converters import get_converter

from prism_lsp.analysis.ignores import ignore_comment_edit
from prism_lsp.server.commands import APPLY_EDIT, RUN_PANEL, SHOW_CANDIDATE
from prism_lsp.server.diagnostic_data import DiagnosticData
from prism_lsp.server.diagnostics import SOURCE
from prism_lsp.server.positions import Lines


def build_actions(
    uri: str,
    version: int | None,
    lines: Lines,
    diagnostics: list[types.Diagnostic],
    *,
    in_task: bool,
    literals: bool = True,
    apply_edit: bool = True,
) -> list[types.CodeAction | types.Command]:
    """Actions for the diagnostics the client sent (only ours are used).

    `literals`: the client takes `CodeAction` literals; else only `Command`s are returned, and
    the ignore edits go through `prism.applyEdit` when `apply_edit` (the client applies edits).

    Command-only entries are plain `Command`s (valid in a code action result, and
    parsed the same way by every client, unlike a `CodeAction` holding only a command).
    """
    ours = [d for d in diagnostics if d.source == SOURCE and isinstance(d.code, str)]
    actions: list[types.CodeAction | types.Command] = []
    seen: set[tuple[str, int]] = set()
    for diag in ours:
        line = diag.range.end.line
        if (diag.code, line) in seen:
            continue
        seen.add((str(diag.code), line))
        action = _ignore(uri, version, lines, line, str(diag.code), diag)
        if literals:
            actions.append(action)
        elif apply_edit and action.edit is not None:
            actions.append(
                types.Command(
                    title=action.title, command=APPLY_EDIT, arguments=[get_converter().unstructure(action.edit)]
                )
            )
    shown: set[str] = set()
    for diag in ours:
        data = DiagnosticData.from_lsp(diag.data)
        for cid in data.candidates if data is not None else ():
            if cid not in shown:
                shown.add(cid)
                actions.append(
                    types.Command(title=f"Show candidate `{cid}`", command=SHOW_CANDIDATE, arguments=[uri, cid])
                )
    if in_task:
        actions.append(types.Command(title="Run panel now", command=RUN_PANEL, arguments=[uri]))
    return actions


def _ignore(
    uri: str, version: int | None, lines: Lines, line0: int, kind: str, diag: types.Diagnostic
) -> types.CodeAction:
    old = lines.text(line0 + 1)
    new = ignore_comment_edit(old, kind)
    rng = types.Range(types.Position(line0, 0), types.Position(line0, lines.column(line0 + 1, len(old))))
    edit = types.TextEdit(range=rng, new_text=new)
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.CodeAction(
        title=f"Ignore `{kind}` on this line",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=types.WorkspaceEdit(
            changes={uri: [edit]}, document_changes=[types.TextDocumentEdit(text_document=doc, edits=[edit])]
        ),
    )

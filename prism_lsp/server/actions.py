"""Code actions: "Ignore `<kind>` on this line", "Show candidate `<id>`", "Run panel now".

The ignore action inserts (or extends) a `# prism: ignore[<kind>]` comment on the
diagnostic's last line; the next check honours it. Candidate actions exist only when
the panel is fully revealed (otherwise diagnostics carry no candidate ids).
"""

from __future__ import annotations

from lsprotocol import types

from prism_lsp.analysis.ignores import ignore_comment_edit
from prism_lsp.server.diagnostics import SOURCE
from prism_lsp.server.positions import Lines

RUN_PANEL = "prism.runPanel"
SHOW_CANDIDATE = "prism.showCandidate"


def build_actions(uri: str, version: int | None, lines: Lines, diagnostics: list[types.Diagnostic], *,
                  in_task: bool) -> list[types.CodeAction | types.Command]:
    """Actions for the diagnostics the client sent (only ours are used).

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
        actions.append(_ignore(uri, version, lines, line, str(diag.code), diag))
    shown: set[str] = set()
    for diag in ours:
        for cid in (diag.data or {}).get("candidates", []) if isinstance(diag.data, dict) else []:
            if cid not in shown:
                shown.add(cid)
                actions.append(types.Command(title=f"Show candidate `{cid}`", command=SHOW_CANDIDATE,
                                             arguments=[uri, cid]))
    if in_task:
        actions.append(types.Command(title="Run panel now", command=RUN_PANEL, arguments=[uri]))
    return actions


def _ignore(uri: str, version: int | None, lines: Lines, line0: int, kind: str,
            diag: types.Diagnostic) -> types.CodeAction:
    old = lines.text(line0 + 1)
    new = ignore_comment_edit(old, kind)
    rng = types.Range(types.Position(line0, 0), types.Position(line0, lines.column(line0 + 1, len(old))))
    edit = types.TextEdit(range=rng, new_text=new)
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.CodeAction(
        title=f"Ignore `{kind}` on this line", kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
        edit=types.WorkspaceEdit(changes={uri: [edit]},
                                 document_changes=[types.TextDocumentEdit(text_document=doc, edits=[edit])]))

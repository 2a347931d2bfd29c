"""What the client can do, read once from its `initialize` capabilities (ruff's server does the same).

Pure: lsprotocol's capability objects in, plain booleans out, so no handler walks the nested,
mostly-optional capability tree again.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

# Prism's own `experimental` flags (the VS Code extension sets them).
CANDIDATE_DOCUMENTS_CAPABILITY = "prismCandidateDocuments"
PANEL_COMMANDS_CAPABILITY = "prismPanelCommands"


@dataclass(frozen=True)
class ResolvedClientCapabilities:
    progress: bool = False
    show_document: bool = False
    configuration: bool = False
    markdown_hover: bool = False
    code_action_literals: bool = False
    apply_edit: bool = False
    related_information: bool = False
    code_description: bool = False
    candidate_documents: bool = False
    panel_commands: bool = False
    lens_refresh: bool = False
    watched_files_registration: bool = False


def resolve(caps: types.ClientCapabilities | None) -> ResolvedClientCapabilities:
    """The booleans Prism asks about; a missing part of the tree means "not supported"."""
    caps = caps or types.ClientCapabilities()
    window, workspace, td = caps.window, caps.workspace, caps.text_document
    formats = td.hover.content_format if td and td.hover else None
    experimental = caps.experimental if isinstance(caps.experimental, dict) else {}
    return ResolvedClientCapabilities(
        progress=bool(window and window.work_done_progress),
        show_document=bool(window and window.show_document and window.show_document.support),
        configuration=bool(workspace and workspace.configuration),
        markdown_hover=bool(formats) and types.MarkupKind.Markdown in (formats or []),
        code_action_literals=bool(td and td.code_action and td.code_action.code_action_literal_support),
        apply_edit=bool(workspace and workspace.apply_edit),
        related_information=bool(td and td.publish_diagnostics and td.publish_diagnostics.related_information),
        code_description=bool(td and td.publish_diagnostics and td.publish_diagnostics.code_description_support),
        candidate_documents=experimental.get(CANDIDATE_DOCUMENTS_CAPABILITY) is True,
        panel_commands=experimental.get(PANEL_COMMANDS_CAPABILITY) is True,
        lens_refresh=bool(workspace and workspace.code_lens and workspace.code_lens.refresh_support),
        watched_files_registration=bool(
            workspace and workspace.did_change_watched_files and workspace.did_change_watched_files.dynamic_registration
        ),
    )

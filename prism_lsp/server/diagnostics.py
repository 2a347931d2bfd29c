"""Findings -> LSP diagnostics on exact ranges, with severities, ignores and related files.

- `rejects-valid` sits on the whole `assert` statement that failed;
- `accepts-invalid` and `misses-baseline` on the test's name;
- `execution-error` on the assertion or line where the error happened;
- syntax errors and `weak-assertion` hints come from tree-sitter, without any run.
`# prism: ignore[kind]` comments on any line of a range silence it.
Diagnostic text is plain text, not markdown (editors show it as is): no code backticks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from prism_lsp.analysis.ignores import is_ignored
from prism_lsp.analysis.suite_map import assertion_at_line, test_at_line
from prism_lsp.document.candidate_documents import CandidateUri
from prism_lsp.document.check import Check
from prism_lsp.findings_doc import finding_uri
from prism_lsp.model.report import SUITE_LEVEL_KINDS, FindingOut
from prism_lsp.server.diagnostic_data import DiagnosticData
from prism_lsp.server.positions import Lines
from prism_lsp.server.settings import Settings

SOURCE = "prism"

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


@dataclass(frozen=True)
class Options:
    """What the client can show."""

    related_information: bool = True
    encoding: str = "utf-16"
    candidate_documents: bool = False  # the client opens `prism-candidate:` documents (the VS Code extension)
    code_description: bool = (
        False  # the client shows `codeDescription` links (publishDiagnostics.codeDescriptionSupport)
    )


def explanation(kind: str) -> types.CodeDescription:
    """The link to `kind`'s section of the findings document shipped in the package (`findings_doc`)."""
    return types.CodeDescription(href=finding_uri(kind))


def build_diagnostics(check: Check, settings: Settings, options: Options = Options()) -> list[types.Diagnostic]:
    """Every diagnostic for one checked version, in line order, ignores applied."""
    lines = Lines(check.text, options.encoding)
    out: list[types.Diagnostic] = []
    if check.suite_map.problem:
        out.append(
            _diag(
                lines.line_range(1),
                f"not run: {check.suite_map.problem}",
                "execution-error",
                settings,
                DiagnosticData(kind="execution-error", rule="limits"),
                links=options.code_description,
            )
        )
    for issue in check.suite_map.syntax_errors:
        out.append(
            _diag(
                lines.span_range(issue.span),
                issue.message,
                "execution-error",
                settings,
                DiagnosticData(kind="execution-error", rule="syntax"),
                links=options.code_description,
            )
        )
    for f in check.static:
        if not is_ignored(check.ignores, f.kind, f.span.start_line, f.span.end_line, rule=f.rule):
            out.append(
                _diag(
                    lines.span_range(f.span),
                    f.message,
                    f.kind,
                    settings,
                    DiagnosticData(kind=f.kind, rule=f.rule, tests=(f.test_name,) if f.test_name else ()),
                    links=options.code_description,
                )
            )
    if check.report is not None:
        for finding in check.report.findings:
            if finding.kind == "weak-assertion":
                continue
            rng = _finding_range(check, finding, lines)
            if is_ignored(check.ignores, finding.kind, rng.start.line + 1, rng.end.line + 1, rule=finding.rule):
                continue
            related = _related(check, finding, options.candidate_documents) if options.related_information else None
            out.append(
                _diag(
                    rng,
                    finding.message,
                    finding.kind,
                    settings,
                    DiagnosticData(
                        kind=finding.kind,
                        rule=finding.rule,
                        candidates=tuple(finding.candidates),
                        tests=tuple(finding.tests),
                    ),
                    related,
                    links=options.code_description,
                )
            )
    return sorted(out, key=lambda d: (d.range.start.line, d.range.start.character, str(d.code)))


def plain(message: str) -> str:
    """A finding's message as diagnostic text: markdown code spans lose their backticks."""
    return message.replace("`", "")


def _diag(
    rng: types.Range,
    message: str,
    kind: str,
    settings: Settings,
    data: DiagnosticData,
    related: list[types.DiagnosticRelatedInformation] | None = None,
    *,
    links: bool = False,
) -> types.Diagnostic:
    return types.Diagnostic(
        range=rng,
        message=plain(message),
        severity=SEVERITY[settings.level(kind)],
        code=kind,
        code_description=explanation(kind) if links else None,
        source=SOURCE,
        data=data.to_lsp(),
        related_information=related or None,
    )


def _finding_range(check: Check, finding: FindingOut, lines: Lines) -> types.Range:
    suite_map = check.suite_map
    if finding.kind in SUITE_LEVEL_KINDS or (finding.kind == "rejects-valid" and not finding.tests):
        test = test_at_line(suite_map, finding.line)
        if test is not None:
            return lines.span_range(test.name_span)
    assertion = assertion_at_line(suite_map, finding.line)
    if assertion is not None:
        return lines.span_range(assertion.span)
    test = test_at_line(suite_map, finding.line)
    if test is not None and test.name_span.start_line == finding.line:
        return lines.span_range(test.name_span)
    return lines.line_range(finding.line)


def _suites_own_error(check: Check, finding: FindingOut) -> bool:
    """An execution error on the initial program or the reference is the suite's (an ImportError, a
    fixture that breaks): no candidate's change explains it, so none is listed under it."""
    if finding.kind != "execution-error" or check.task is None:
        return False
    on_initial = (finding.count or 0) > len(finding.candidates)  # the initial program is counted, never named
    return on_initial or any(c.reference and c.id in finding.candidates for c in check.task.candidates)


def _related(check: Check, finding: FindingOut, documents: bool) -> list[types.DiagnosticRelatedInformation]:
    """Where each named candidate changed the program: its read-only `prism-candidate:` document when
    the client opens those, else the file in the (digest-verified) tree cache.

    Only at reveal `full`: a candidate's file is its answer (findings below `full` carry no ids
    anyway; this keeps it so if they ever do)."""
    if check.run is None or check.task is None or check.reveal != "full" or _suites_own_error(check, finding):
        return []
    out = []
    for cid in finding.candidates:
        tree = check.run.trees.get(cid)
        cand = check.task.candidate(cid)
        if tree is None or cand is None:
            continue
        for rel, changed in sorted(tree.changed.items())[:3]:
            line = (min(changed) - 1) if changed else 0
            uri = (
                str(CandidateUri(cid, rel, check.path.as_uri()))
                if documents and check.path is not None
                else Path(tree.path, rel).as_uri()
            )
            where = types.Location(
                uri=uri, range=types.Range(types.Position(max(line, 0), 0), types.Position(max(line, 0), 0))
            )
            note = f": {cand.note}" if cand.note else ""
            out.append(
                types.DiagnosticRelatedInformation(where, plain(f"{cand.label} candidate {cid} changes {rel}{note}"))
            )
    return out

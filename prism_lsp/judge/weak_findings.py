"""Static findings from the suite text alone (tree-sitter), as engine findings."""

from __future__ import annotations

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.analysis.weak_assertions import static_findings
from prism_lsp.judge.findings import Finding


def weak_assertion_findings(text: str) -> list[Finding]:
    """One `weak-assertion` finding per weak test, with the rule that fired."""
    return [
        Finding("weak-assertion", f.span.start_line, f.span.end_line, f.message, tests=[f.test_name or ""], rule=f.rule)
        for f in static_findings(parse_suite(text))
    ]

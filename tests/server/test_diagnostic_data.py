"""The typed `data` of a Prism diagnostic: what diagnostics send is what code actions read back,
and anything else a client sends back is not taken for ours; and each kind's `codeDescription` link."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from prism_lsp.server.diagnostic_data import DiagnosticData
from prism_lsp.server.diagnostics import explanation
from prism_lsp.server.settings import DEFAULT_SEVERITY


def test_what_a_diagnostic_sends_reads_back_the_same():
    data = DiagnosticData(kind="accepts-invalid", candidates=("ceiling",), tests=("test_a", "test_b"))
    wire = data.to_lsp()
    assert wire == {"kind": "accepts-invalid", "rule": None, "candidates": ["ceiling"], "tests": ["test_a", "test_b"]}
    assert DiagnosticData.from_lsp(wire) == data


@pytest.mark.parametrize(
    "raw",
    [None, "accepts-invalid", ["ceiling"], {"candidates": ["ceiling"]}, {"kind": "x", "candidates": "ceiling"}],
)
def test_data_that_is_not_ours_is_none(raw):
    assert DiagnosticData.from_lsp(raw) is None


def test_keys_a_newer_server_added_are_ignored():
    assert DiagnosticData.from_lsp({"kind": "weak-assertion", "rule": "type-only", "new": 1}) == DiagnosticData(
        kind="weak-assertion", rule="type-only"
    )


@pytest.mark.parametrize("kind", [*DEFAULT_SEVERITY, "unstable"])
def test_every_finding_kind_links_to_a_section_of_a_shipped_document(kind):
    url = urlparse(explanation(kind).href)
    doc = Path(unquote(url.path))
    assert url.scheme == "file" and url.fragment == kind
    assert f"\n## {kind}\n" in doc.read_text()  # the heading an anchor `#kind` lands on

"""`prism-candidate:` URIs: made, parsed back, and read as editors re-encode them; paths stay in the tree."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from prism_lsp.document.candidate_documents import CandidateUri, NotShown, parse_uri

DOC = "file:///task/suites/test_x.py"


def test_a_uri_round_trips_and_survives_vs_codes_re_encoding():
    uri = CandidateUri("half-even", "pkg/solution.py", DOC)
    assert parse_uri(str(uri)) == uri
    scheme, rest = str(uri).split(":", 1)
    path, query = rest.split("?", 1)
    vscode_style = f"{scheme}:{path}?{quote(query, safe='')}"  # VS Code escapes the query's `=` and `%`
    assert parse_uri(vscode_style) == uri


@pytest.mark.parametrize(
    "raw",
    [
        "file:///x.py",
        "prism-candidate:/half-even/../x?doc=file%3A%2F%2F%2Fx",
        "prism-candidate:/half-even/x.py",
        "prism-candidate:/half-even?doc=x",
    ],
)
def test_anything_else_is_refused(raw):
    with pytest.raises(NotShown):
        parse_uri(raw)

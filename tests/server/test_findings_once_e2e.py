"""End to end (pytest-lsp, real server and sandbox), issue 23 items 11 and 12 and the `codeDescription`
links: an invalid candidate let through is said once, on the test a check can go into; every
diagnostic links to its kind's explanation; a weak-assertion hint is in the hover anywhere on its
assertion; an ImportError lists no candidate's changes under it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from tests.server.harness import FIXTURES, of_kind, open_doc, replace_all

SUITE = FIXTURES / "mean-rounded" / "suites" / "test_weak.py"
# test_weak.py and one more test: three tests reach the invalid candidates' changes, one of them
# (test_returns_int) only checks the type.
TEXT = SUITE.read_text() + "\n\ndef test_whole_mean():\n    assert mean_rounded([2, 4, 6]) == 4\n"
BROKEN = "from solution import no_such_function\n\n\ndef test_it():\n    assert no_such_function() == 1\n"


def _explained(diag: types.Diagnostic) -> bool:
    assert diag.code_description is not None, diag
    url = urlparse(diag.code_description.href)
    doc = Path(unquote(url.path))
    return url.scheme == "file" and url.fragment == diag.code and f"\n## {diag.code}\n" in doc.read_text()


async def test_accepts_invalid_once_links_hints_in_hovers_and_no_related_under_an_import_error(client):
    uri = open_doc(client, SUITE, TEXT)
    diags = await client.recorder.final_diagnostics(uri, 1, "accepts-invalid")
    accepts = of_kind(diags, "accepts-invalid")
    named = [cid for d in accepts for cid in d.data["candidates"]]
    assert named and len(named) == len(set(named)), "each candidate let through is said once"
    # on test_returns_int (line 4): the first reaching test that every valid candidate passes, where
    # the quick fix adds its check; before, the same words sat on all three tests' names
    assert [d.range.start.line for d in accepts] == [3]
    assert accepts[0].message.split(" through")[1].startswith("; test_simple_case, test_whole_mean reach it too.")
    assert all(_explained(d) for d in diags)
    # the first run's progress says what the wait is (issue 23 item 17: runners start cold)
    begins = [v for reports in client.progress_reports.values() for v in reports if v.kind == "begin"]
    assert begins[0].message == "starting the sandbox, then running the panel"

    (weak,) = of_kind(diags, "weak-assertion")
    assert weak.severity == types.DiagnosticSeverity.Hint and weak.range.start.line == 4
    # the pointer on the closing parenthesis, far from the hint's dots at the start of the assert
    end = len(TEXT.splitlines()[4]) - 1
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, end))
    )
    assert "**weak-assertion** (type-only): Only checks the type of the result" in hover.contents.value
    assert hover.contents.value.index("| program |") < hover.contents.value.index("weak-assertion")
    assert hover.range == types.Range(types.Position(4, 4), types.Position(4, end + 1))

    replace_all(client, uri, 2, BROKEN)
    diags = await client.recorder.final_diagnostics(uri, 2)
    errors = of_kind(diags, "execution-error")
    assert errors and all("no_such_function" in d.message for d in errors)
    # every program failed to import the suite: no candidate's change explains that
    assert all(not d.related_information for d in errors)

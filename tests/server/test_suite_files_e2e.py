"""End to end: only test files run against the panel; program files and new, empty test files
get static hints only, no error and no run."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.harness import FAST, FIXTURES, init_params, of_kind, open_doc, server_config

# Its own tree cache: before these files were told apart, running `solution.py` "as a suite"
# overwrote that file in the candidate trees, which must never spoil the shared cache.
PRIVATE_CACHE = Path(tempfile.mkdtemp(prefix="prism-lsp-private-cache-"))
atexit.register(shutil.rmtree, PRIVATE_CACHE, ignore_errors=True)


@pytest_lsp.fixture(config=server_config(PRIVATE_CACHE))
async def private_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(init_params(FAST))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def task(tmp_path) -> Path:
    dest = tmp_path / "mean-rounded"
    shutil.copytree(FIXTURES / "mean-rounded", dest)
    return dest


@pytest.mark.parametrize(
    ("rel", "text", "why"),
    [
        ("suites/test_empty.py", "", "no tests yet"),
        ("suites/test_new.py", "from solution import mean_rounded\n", "no tests yet"),
        ("initial/solution.py", None, "this file is part of the initial program, not a suite"),
        (
            "suites/helpers.py",
            "def check(x):\n    assert x\n",
            "not a test file (pytest collects test_*.py or *_test.py)",
        ),
    ],
)
async def test_files_that_are_not_runnable_suites_get_no_run_and_no_error(private_client, task, rel, text, why):
    client, rec = private_client, private_client.recorder
    path = task / rel
    if text is not None:
        path.write_text(text)
    uri = open_doc(client, path)
    diags = await rec.final_diagnostics(uri, 1)
    assert not of_kind(diags, "execution-error")
    ours = [s for s in rec.statuses if s["uri"] == uri]
    assert [(s["state"], s["message"], s["metrics"]) for s in ours] == [("idle", f"not run: {why}", None)]
    assert not client.messages, "no message pops up"
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    if rel.startswith("suites/test_"):
        assert lenses[0].command.title == f"Prism: not run: {why}"
    else:
        assert not lenses  # nothing runs a program file: no lens offers to


async def test_a_test_file_in_the_initial_programs_folder_runs_against_the_panel(private_client, task):
    """The author's workspace is the initial program's folder: `tests/test_x.py` there is a suite."""
    client, rec = private_client, private_client.recorder
    path = task / "initial" / "tests" / "test_x.py"
    path.parent.mkdir()
    path.write_text((task / "suites" / "test_overfit.py").read_text())
    uri = open_doc(client, path)
    diags = await rec.final_diagnostics(uri, 1)
    assert of_kind(diags, "rejects-valid")
    final = [s for s in rec.statuses if s["uri"] == uri and s["state"] != "running"]
    assert final[-1]["metrics"] is not None

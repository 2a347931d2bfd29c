"""A pytest-lsp client that records every publication and `prism/status`, and waits on them.

Waiting is event-driven (an `asyncio.Event` set by the notification handlers), never a sleep.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
INIT_OPTIONS = ROOT / "vscode-client" / "test" / "fixtures" / "initialization-options.json"
WAIT_S = 120.0
FAST = {"debounceMs": 50, "timeoutSeconds": 10}
# One tree cache for the whole test session (trees are content-addressed; sharing is safe).
CACHE = Path(tempfile.mkdtemp(prefix="prism-lsp-cache-"))
atexit.register(shutil.rmtree, CACHE, ignore_errors=True)
T = TypeVar("T")


class Recorder:
    """Everything the server told the client, in arrival order."""

    def __init__(self) -> None:
        self.publications: list[types.PublishDiagnosticsParams] = []
        self.statuses: list[dict[str, Any]] = []
        self.lens_refreshes = 0
        self.configuration_answers: list[Any] = []  # what the client answered to workspace/configuration
        self.registrations: list[types.Registration] = []  # client/registerCapability, in order
        self.message_requests: list[types.ShowMessageRequestParams] = []  # window/showMessageRequest, in order
        self.click: str | None = None  # the button a message request is answered with (None: dismissed)
        self.log: list[tuple[int, Any]] = []  # (sequence, publication or status) in arrival order
        self._event: asyncio.Event | None = None

    def _changed(self) -> asyncio.Event:
        if self._event is None:
            self._event = asyncio.Event()
        return self._event

    def add(self, bucket: list, item: Any) -> None:
        bucket.append(item)
        self.log.append((len(self.log), item))
        self._changed().set()

    async def until(self, find: Callable[[], T | None], timeout: float = WAIT_S) -> T:
        async with asyncio.timeout(timeout):
            while True:
                found = find()
                if found is not None:
                    return found
                event = self._changed()
                event.clear()
                await event.wait()

    async def diagnostics(self, uri: str, version: int, timeout: float = WAIT_S) -> list[types.Diagnostic]:
        """The diagnostics of the first publication for `uri` at `version` (waits for it)."""
        pub = await self.until(
            lambda: next((p for p in self.publications if p.uri == uri and p.version == version), None), timeout
        )
        return list(pub.diagnostics)

    async def final_diagnostics(self, uri: str, version: int, kind: str = "") -> list[types.Diagnostic]:
        """The last publication for `version`, once the check is over: a settled status
        (idle, error, no-task) for `uri` arrived after a publication of that version."""

        def settled() -> list[types.Diagnostic] | None:
            pubs = [
                (seq, p)
                for seq, p in self.log
                if isinstance(p, types.PublishDiagnosticsParams) and p.uri == uri and p.version == version
            ]
            if pubs and any(
                isinstance(s, dict) and s["uri"] == uri and s["state"] != "running"
                for seq, s in self.log
                if seq > pubs[0][0]
            ):
                return list(pubs[-1][1].diagnostics)
            return None

        return await self.until(settled)

    def versions(self, uri: str) -> list[int | None]:
        return [p.version for p in self.publications if p.uri == uri]


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    recorder = Recorder()
    features = dict(DEFAULT_CLIENT_FEATURES)

    def publish(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        recorder.add(recorder.publications, params)

    def status(ls: LanguageClient, params: Any) -> None:
        recorder.add(recorder.statuses, _plain(params))

    def lens_refresh(ls: LanguageClient, params: None) -> None:
        recorder.lens_refreshes += 1
        recorder._changed().set()  # wakes `until`

    answer_configuration = features[types.WORKSPACE_CONFIGURATION]

    def configuration(ls: LanguageClient, params: types.ConfigurationParams) -> list[Any]:
        answer = answer_configuration(ls, params)
        recorder.add(recorder.configuration_answers, answer)
        return answer

    def register_capability(ls: LanguageClient, params: types.RegistrationParams) -> None:
        for registration in params.registrations:
            recorder.add(recorder.registrations, registration)

    def message_request(ls: LanguageClient, params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        recorder.add(recorder.message_requests, params)
        return types.MessageActionItem(recorder.click) if recorder.click is not None else None

    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    features[types.WINDOW_SHOW_MESSAGE_REQUEST] = message_request
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.WORKSPACE_CODE_LENS_REFRESH] = lens_refresh
    features[types.WORKSPACE_CONFIGURATION] = configuration
    features["prism/status"] = status
    register_lsp_features(client, features)
    client.recorder = recorder  # type: ignore[attr-defined]
    return client


def _plain(value: Any) -> Any:
    """pygls hands custom params over as namedtuple-like objects; make them dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def server_config(cache_dir: Path, env: dict[str, str] | None = None) -> ClientServerConfig:
    return ClientServerConfig(
        server_command=[sys.executable, "-m", "prism_lsp"],
        client_factory=make_client,
        # Results not kept on disk between the tests' servers (they share the tree cache), unless a
        # test says so (`PRISM_NO_CACHE: ""`, a restarted server reading its results back).
        server_env={**os.environ, "PRISM_CACHE_DIR": str(cache_dir), "PRISM_NO_CACHE": "1", **(env or {})},
    )


def init_params(options: dict | None = None, client: str = "visual-studio-code") -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=client_capabilities(client), initialization_options=options, root_uri=ROOT.as_uri()
    )


def expected(task: str) -> dict:
    return tomllib.loads((FIXTURES / task / "expected.toml").read_text())


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.resolve().as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text() if text is None else text
            )
        )
    )
    return uri


def replace_all(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def edit_line(client: LanguageClient, uri: str, version: int, line0: int, old: str, new: str) -> None:
    """Replace line `line0` (0-based) whose text is `old` by `new`, as an incremental change."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line0, 0), types.Position(line0, len(old))), text=new
                )
            ],
        )
    )


def of_kind(diags: list[types.Diagnostic], kind: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == kind]


def record_applied_edits(client: LanguageClient) -> None:
    """Answer `workspace/applyEdit` as applied, keeping each request in `client.applied_edits`."""
    client.applied_edits = []  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(ls: LanguageClient, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        ls.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

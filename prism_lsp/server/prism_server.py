"""`PrismServer`: the pygls server's state and the glue between protocol and core.

Owns the settings, the :class:`Checker` (engine session, caches), one
:class:`DocumentRecord` per open document, and two :class:`Scheduler`s: one for panel
runs, one for the static diagnostics published on every edit when runs wait for a save.
Turns checks into publications: `publish_diagnostics` for any version, `finish` when a
check is over (status, lenses, messages).
Blocking work always runs in a thread (`asyncio.to_thread`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from prism_lsp import __version__
from prism_lsp.document.check import Check, CheckState
from prism_lsp.document.checker import Checker
from prism_lsp.document.kept_findings import with_last_findings
from prism_lsp.document.standing import state_of
from prism_lsp.repo.offer import ACTION as OFFER_ACTION
from prism_lsp.repo.offer import MESSAGE as OFFER_MESSAGE
from prism_lsp.repo.offer import InitOffers, Offer
from prism_lsp.scheduler import Job, Scheduler
from prism_lsp.server.capabilities import ResolvedClientCapabilities, resolve
from prism_lsp.server.diagnostics import Options, build_diagnostics
from prism_lsp.server.settings import ParsedSettings, Settings, SettingsLayers
from prism_lsp.server.status import (
    STATUS,
    PanelProgress,
    dropped_status,
    finished_status,
    run_summary,
    status_params,
)
from prism_lsp.tasks.native import find_task_root

log = logging.getLogger(__name__)

# What a task is made of besides its suites: a change reruns the task's open suites.
TASK_FILE_GLOBS = ("**/prism.toml", "**/candidates/**", "**/initial/**")
# Why nothing runs while the client says the folder is not trusted (the phrase after "not run: ").
STATIC_ONLY = "the folder is not trusted, so only static hints are shown; trust it to run the panel"


def uri_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


@dataclass
class DocumentRecord:
    """What the server keeps about one open document between checks."""

    checked: Check | None = None  # the last finished check: what hover, lenses and status describe
    last_run: Check | None = None  # the last check with panel results: findings carried to newer versions
    published: list[types.Diagnostic] | None = None  # the diagnostics last sent for the document


class PrismServer(LanguageServer):
    """The language server: state plus the protocol side of checking a document."""

    def __init__(self, checker: Checker | None = None) -> None:
        super().__init__("prism-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.layers = SettingsLayers()
        self.settings = Settings()
        self._checker = checker
        self.scheduler: Scheduler[Check] = Scheduler(self._run, self._finish, self._failed, self._dropped)
        # Static diagnostics on every edit (run on save); its own scheduler so they never cancel a panel run.
        self.static_scheduler: Scheduler[Check] = Scheduler(self._analyze, self._publish_static)
        self.documents: dict[str, DocumentRecord] = {}
        self._told: set[str] = set()  # messages shown once
        self.offers = InitOffers()  # "create a task from this fix", for a test file in a git repository
        self._asking: set[asyncio.Task[None]] = set()  # offers waiting for the user's click
        # What "Create Task" does: the `prism.initTask` command's handler, set by the wiring
        # (`server/app.py`), so this module needs nothing of the commands module.
        self.accept_offer: Callable[[str], Awaitable[None]] | None = None
        self._resolved: tuple[object, ResolvedClientCapabilities] | None = None
        self.closed = False  # after `shutdown`: nothing more is told to the client
        self._reporting = False

    def use_checker(self, checker: Checker) -> None:
        """Check with `checker` (before the first check; a benchmark's baseline, a test's own cache)."""
        self._checker = checker

    @property
    def checker(self) -> Checker:
        if self._checker is None:
            self._checker = Checker()
        return self._checker

    # ------------------------------------------------------------ capabilities
    @property
    def capabilities(self) -> ResolvedClientCapabilities:
        """The client's capabilities, resolved once from what `initialize` carried."""
        caps = self.client_capabilities
        if self._resolved is None or self._resolved[0] is not caps:
            self._resolved = (caps, resolve(caps))
        return self._resolved[1]

    def supports_progress(self) -> bool:
        return self.capabilities.progress

    def supports_show_document(self) -> bool:
        return self.capabilities.show_document

    def supports_configuration(self) -> bool:
        return self.capabilities.configuration

    def supports_markdown_hover(self) -> bool:
        """The client lists markdown in `textDocument.hover.contentFormat` (else: plain text)."""
        return self.capabilities.markdown_hover

    def supports_code_action_literals(self) -> bool:
        """The client takes `CodeAction` literals (else only `Command`s)."""
        return self.capabilities.code_action_literals

    def supports_apply_edit(self) -> bool:
        return self.capabilities.apply_edit

    def diagnostic_options(self) -> Options:
        encoding = str(getattr(self.workspace, "position_encoding", "utf-16") or "utf-16")
        return Options(
            related_information=self.capabilities.related_information,
            encoding=encoding,
            candidate_documents=self.supports_candidate_documents(),
            code_description=self.capabilities.code_description,
        )

    def supports_candidate_documents(self) -> bool:
        """The client opens `prism-candidate:` documents (it says so in `experimental`)."""
        return self.capabilities.candidate_documents

    def supports_panel_commands(self) -> bool:
        """The client runs `prism.buildPanel` itself (it says so in `experimental`)."""
        return self.capabilities.panel_commands

    def _lens_refresh(self) -> bool:
        return self.capabilities.lens_refresh

    # ------------------------------------------------------------ settings
    def apply_settings(self, raw: Any, *, initialization: bool = False, rerun: bool) -> None:
        """Layer `raw` over the current settings: initializationOptions, or workspace configuration
        (where only the keys it names change)."""
        parsed: ParsedSettings = (
            self.layers.set_initialization(raw) if initialization else self.layers.update_workspace(raw)
        )
        if parsed.unknown:
            self.log(f"ignoring unknown settings: {', '.join(parsed.unknown)}")
        for problem in parsed.problems:
            self.tell_once(types.MessageType.Warning, f"Prism: {problem}")
        changed = parsed.settings != self.settings
        self.settings = parsed.settings
        if changed and rerun:
            for doc_uri in list(self.documents):
                self.check_now(doc_uri, "config")

    async def pull_settings(self) -> None:
        if not self.supports_configuration():
            return
        try:
            answer = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="prism")])
            )
        except Exception as exc:
            self.log(f"workspace/configuration failed: {exc!r}")
            return
        if answer and isinstance(answer[0], dict):  # null / no section: nothing to change
            self.apply_settings(answer[0], rerun=True)

    # ------------------------------------------------------------ messages
    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        """One line in the client's output (window/logMessage); the server's own log has it at debug.

        A client shows the server's stderr in the same output channel (VS Code's does): at info
        every line would be printed there twice."""
        log.debug(message)
        self.window_log_message(types.LogMessageParams(kind, message))

    def tell_once(self, kind: types.MessageType, message: str) -> None:
        if message not in self._told:
            self._told.add(message)
            self.window_show_message(types.ShowMessageParams(kind, message))

    def status(self, params: dict) -> None:
        self.protocol.notify(STATUS, params)

    # ------------------------------------------------------------ checking
    def document(self, uri: str) -> tuple[int, str] | None:
        """(version, text) of an open document: the editor's buffer is the one place its latest version is known."""
        doc = self.workspace.text_documents.get(uri)
        return (doc.version or 0, doc.source) if doc is not None else None

    def record(self, uri: str) -> DocumentRecord:
        return self.documents.setdefault(uri, DocumentRecord())

    def checked(self, uri: str) -> Check | None:
        """The document's last finished check (None before the first)."""
        record = self.documents.get(uri)
        return record.checked if record is not None else None

    def check_now(self, uri: str, trigger: str) -> asyncio.Task[None] | None:
        doc = self.document(uri)
        return self.scheduler.submit(Job(uri, doc[0], doc[1], trigger)) if doc else None

    def check_later(self, uri: str) -> None:
        """An edit: a debounced panel run (which publishes the static diagnostics first), or, on
        save, only the static diagnostics at once."""
        doc = self.document(uri)
        if doc is None:
            return
        if self.settings.run_on == "save":
            # A run in flight keeps going (its per-test results fill the cache for the next save);
            # its result is dropped as stale and `_dropped` ends its "running" status.
            self.scheduler.seen(uri, doc[0])
            self.static_scheduler.submit(Job(uri, doc[0], doc[1]))
        else:
            self.scheduler.submit(Job(uri, doc[0], doc[1]), self.settings.debounce_ms / 1000)

    def current(self, uri: str, version: int) -> bool:
        """Whether `version` is still the buffer's version (nothing is ever published for an older one)."""
        doc = self.document(uri)
        return doc is not None and doc[0] == version

    async def _analyze(self, job: Job, cancel: threading.Event) -> Check:
        return await asyncio.to_thread(self.checker.analyze, uri_path(job.uri), job.version, job.text, self.settings)

    async def _run(self, job: Job, cancel: threading.Event) -> Check:
        """Analyse `job`'s version and, when it is runnable, publish its static diagnostics and run the panel."""
        settings = self.settings
        base = await self._analyze(job, cancel)
        if base.runnable and settings.static_only:  # no candidate, task or sandbox is touched
            return replace(base, state=CheckState("not-run", STATIC_ONLY))
        if not base.runnable or base.task is None:
            return base
        first = self.record(job.uri).last_run is None
        if first:  # runners come up during the steps below (static diagnostics, progress set-up)
            await asyncio.to_thread(self.checker.start_runners, base.task, settings)
        progress = PanelProgress(self, self.supports_progress(), job.uri, first=first)
        total = len(base.task.candidates) + 1
        running: asyncio.Future[Check] | None = None
        if not first:  # the run starts now; the static feedback below is published while it runs
            running = asyncio.ensure_future(
                asyncio.to_thread(self.checker.run_panel, base, settings, progress=progress.report, cancel=cancel)
            )
        # Static feedback before the panel's, with the last run's findings kept until this run's
        # replace them (no flicker while typing).
        self.publish_diagnostics(job.uri, base, pending=True)
        self.status(status_params(job.uri, "running", done=0, total=total))
        await progress.begin()
        try:
            if running is not None:
                return await running
            # cold: the initial program's and the reference's findings, then the panel's
            ahead = await asyncio.to_thread(self.checker.run_first, base, settings, cancel=cancel)
            if ahead is not None:
                self.publish_diagnostics(job.uri, ahead, pending=True)
                progress.report(2, total, "")
            return await asyncio.to_thread(
                self.checker.run_panel, base, settings, progress=progress.report, cancel=cancel
            )
        finally:
            progress.end()
            if running is not None:  # cancelled before its result was taken: nobody waits for it
                running.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def _publish_static(self, job: Job, check: Check) -> None:
        self.publish_diagnostics(job.uri, check)

    def publish_diagnostics(self, uri: str, check: Check, *, pending: bool = False) -> None:
        """The diagnostics of `check` (with the last run's findings that still hold), when its version is
        current; `pending`: a run of this version follows at once (see `document.kept_findings`), so a
        list equal to the one last sent is not sent again (a one-test edit of a 589-test module: 600
        diagnostics, 250 KB, built and encoded while the run waits for the lock this thread holds)."""
        if not self.current(uri, check.version):
            return
        record = self.record(uri)
        shown = with_last_findings(check, record.last_run, pending=pending)
        diagnostics = build_diagnostics(shown, self.settings, self.diagnostic_options())
        if pending and diagnostics == record.published:
            return
        record.published = diagnostics
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=check.version, diagnostics=diagnostics)
        )

    async def _finish(self, job: Job, check: Check) -> None:
        self.finish(job.uri, check)

    def finish(self, uri: str, check: Check) -> None:
        """A check is over: its diagnostics, then it becomes the document's check (status, lenses, messages)."""
        if not self.current(uri, check.version):
            return
        self.publish_diagnostics(uri, check)
        record = self.record(uri)
        record.checked = check
        if check.report is not None:
            record.last_run = check
        state, message = state_of(check)
        self.log(run_summary(uri, check), types.MessageType.Error if state == "error" else types.MessageType.Log)
        if state == "no-task":  # told before the status, so a client sees the offer with it
            offer = None if self.settings.static_only else self.offers.offer(check.path)
            if offer is None:
                self.tell_once(
                    types.MessageType.Info,
                    "Prism: no prism.toml found above this file, so only static hints are shown.",
                )
            elif self.offers.first_time(offer):
                self._offer_init(uri, offer)
        self.status(finished_status(uri, check, record.last_run))
        if state == "error" and message:
            self.tell_once(types.MessageType.Error, f"Prism: {message}")
        if self._lens_refresh():
            try:
                self.workspace_code_lens_refresh(None)
            except Exception as exc:  # refreshing is a nicety
                log.debug("code lens refresh failed: %r", exc)

    def _offer_init(self, uri: str, shown: Offer) -> None:
        """The `prism init` offer as a message with a button (`window/showMessageRequest`): "Create Task"
        does what the code lens does. Asked in the background (the answer comes when the user clicks,
        or never); a click after the lens made the task does nothing."""
        params = types.ShowMessageRequestParams(
            types.MessageType.Info, OFFER_MESSAGE, actions=[types.MessageActionItem(OFFER_ACTION)]
        )
        asked = self.window_show_message_request(params)  # sent now, before the status that follows

        async def ask() -> None:
            try:
                choice = await asyncio.wrap_future(asked)
            except Exception as exc:  # a client that cannot ask still has the lens
                self.offers.answered(shown)
                self.log(f"the offer's message failed: {exc!r}")
                return
            if choice is None or choice.title != OFFER_ACTION:
                self.offers.decline(shown)  # before the repository may be asked again
                self.offers.answered(shown)
                return
            self.offers.answered(shown)
            offer = await asyncio.to_thread(self.offers.offer, uri_path(uri))
            if offer is None:  # acted on already: the lens made the task
                return
            if self.accept_offer is not None:
                await self.accept_offer(uri)

        task = asyncio.get_running_loop().create_task(ask())
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _dropped(self, job: Job) -> None:
        self.status(dropped_status(job.uri, self.record(job.uri).checked, self.settings.run_on))

    async def _failed(self, job: Job, exc: BaseException) -> None:
        self.status(status_params(job.uri, "error", message=f"internal error: {exc!r}"))
        self.log(f"checking {job.uri} failed: {exc!r}", types.MessageType.Error)

    # ------------------------------------------------------------ task files
    async def watch_task_files(self) -> None:
        """Ask the client to tell us when a task's manifest, candidates or initial program change
        (dynamic registration; a client without it sends what its own watchers see, if anything)."""
        if not self.capabilities.watched_files_registration:
            return
        watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in TASK_FILE_GLOBS]
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="prism-task-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                        )
                    ]
                )
            )
        except Exception as exc:  # watching is a nicety: a rerun by hand still works
            self.log(f"could not watch the task files: {exc!r}")

    def task_files_changed(self, uris: list[str]) -> list[str]:
        """Files of a task changed (Build Panel, an edit of prism.toml): rerun the open suites of that task."""
        changed = [p for p in (uri_path(u) for u in uris) if p is not None]
        rerun = [
            doc_uri
            for doc_uri in list(self.documents)
            if (root := self._task_root(doc_uri)) is not None and any(p.is_relative_to(root) for p in changed)
        ]
        for doc_uri in rerun:
            self.check_now(doc_uri, "task-changed")
        return rerun

    def _task_root(self, uri: str) -> Path | None:
        path = uri_path(uri)
        return find_task_root(path) if path is not None else None

    def forget(self, uri: str) -> None:
        self.scheduler.forget(uri)
        self.static_scheduler.forget(uri)
        self.documents.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Tell the client of an error, unless that is what just failed.

        pygls reports a failed send by sending a message. Once the client has gone (after
        `exit` its pipe is closed) that fails too and is reported again, a thousand calls deep,
        each logging its traceback: a minute of CPU before the process could end."""
        if self.closed or self._reporting:
            log.warning("not told to the client: %s", error)
            return
        self._reporting = True
        try:
            super().report_server_error(error, source)
        finally:
            self._reporting = False

    def close(self) -> None:
        self.closed = True
        self.scheduler.close()
        self.static_scheduler.close()
        if self._checker is not None:
            self._checker.close()

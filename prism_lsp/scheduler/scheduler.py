"""When to check a document, and whether its result may still be published.

One asyncio task per document URI: a new edit cancels the pending task (the
debounce) and sets the `threading.Event` of the run in flight, so the engine stops
starting programs for a buffer nobody looks at any more. A result is published
only when its version is still the document's latest, so stale diagnostics never
reach the editor; a result dropped while no newer check is pending is handed to
`dropped`, so whoever said "running" can say it stopped. Knows nothing of LSP; the
server injects `execute`, `publish`, `failed` and `dropped`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

R = TypeVar("R")


@dataclass(frozen=True)
class Job:
    """One check of one document version. `trigger`: open, change, save, command, config."""

    uri: str
    version: int
    text: str
    trigger: str = "change"


Execute = Callable[[Job, threading.Event], Awaitable[R]]
Publish = Callable[[Job, R], Awaitable[None]]
Failed = Callable[[Job, BaseException], Awaitable[None]]
Dropped = Callable[[Job], Awaitable[None]]


class Scheduler(Generic[R]):
    """Debounces and cancels checks per URI; publishes results for the latest version only."""

    def __init__(
        self, execute: Execute[R], publish: Publish[R], failed: Failed | None = None, dropped: Dropped | None = None
    ) -> None:
        self._execute = execute
        self._publish = publish
        self._failed = failed
        self._dropped = dropped
        self._latest: dict[str, int] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancels: dict[str, threading.Event] = {}
        self.stale_dropped = 0

    def seen(self, uri: str, version: int) -> None:
        """Record the document's newest version without scheduling a check (run-on-save edits)."""
        self._latest[uri] = version

    def is_latest(self, uri: str, version: int) -> bool:
        return self._latest.get(uri) == version

    def latest(self, uri: str) -> int | None:
        """The newest version this scheduler was given for `uri` (None once forgotten)."""
        return self._latest.get(uri)

    def submit(self, job: Job, delay_s: float = 0.0) -> asyncio.Task[None]:
        """Check `job` after `delay_s`, replacing whatever was pending or running for its URI."""
        self._latest[job.uri] = job.version
        self._stop(job.uri)
        cancel = threading.Event()
        self._cancels[job.uri] = cancel
        task = asyncio.get_running_loop().create_task(self._check(job, delay_s, cancel), name=f"prism:{job.uri}")
        self._tasks[job.uri] = task
        return task

    def forget(self, uri: str) -> None:
        """The document closed: stop its work and drop its state."""
        self._stop(uri)
        self._latest.pop(uri, None)

    def pending(self, uri: str) -> asyncio.Task[None] | None:
        task = self._tasks.get(uri)
        return task if task is not None and not task.done() else None

    async def idle(self) -> None:
        """Wait until no check is pending (tests and shutdown)."""
        while tasks := [t for t in self._tasks.values() if not t.done()]:
            await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        for uri in list(self._tasks):
            self._stop(uri)

    def _stop(self, uri: str) -> None:
        cancel = self._cancels.pop(uri, None)
        if cancel is not None:
            cancel.set()
        task = self._tasks.pop(uri, None)
        if task is not None and not task.done():
            task.cancel()

    async def _check(self, job: Job, delay_s: float, cancel: threading.Event) -> None:
        try:
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            result = await self._execute(job, cancel)
            if cancel.is_set() or not self.is_latest(job.uri, job.version):
                self.stale_dropped += 1
                await self._report_dropped(job)
                return
            await self._publish(job, result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failed check must never take the server down
            log.exception("checking %s (version %s) failed", job.uri, job.version)
            if not self.is_latest(job.uri, job.version):
                await self._report_dropped(job)
            elif self._failed is not None:
                try:
                    await self._failed(job, exc)
                except Exception:
                    log.exception("reporting the failure of %s failed", job.uri)

    async def _report_dropped(self, job: Job) -> None:
        """Hand a stale result to `dropped`, unless a newer check is pending for the URI.

        A newer check (submitted, so it cancelled this one's event) reports for itself; after
        `seen` (run-on-save edits) nothing is pending, so this run must say that it ended."""
        if self._dropped is None or self._tasks.get(job.uri) is not asyncio.current_task():
            return
        try:
            await self._dropped(job)
        except Exception:
            log.exception("reporting the dropped check of %s failed", job.uri)

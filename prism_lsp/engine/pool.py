"""A pool of warm runners, one per worker thread, each in its own sandbox.

Callers submit program requests (`RunRequest`, or `ProbeRequest` for witness search) and get
futures of `Result`s (`ProbeResult`s; a probe that could not run is an error `Result`). A runner
that dies (a candidate killed it), stops answering, or says anything that is not the
answer to the request it has (a malformed or unsolicited line, a line longer than
`MAX_LINE`) is killed whole and replaced; the request it was running becomes an
`error` outcome naming what happened, never a verdict.
"""

from __future__ import annotations

import dataclasses
import hmac
import os
import queue
import secrets
import select
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

from prism_lsp.runner._prism_limits import timeout_message
from prism_lsp.runner._prism_protocol import (
    MAX_LINE,
    RUNNER_KINDS,
    ProbeRequest,
    ProbeResult,
    ProtocolError,
    Ready,
    Result,
    RunRequest,
    Seal,
    Started,
    decode,
    error_result,
)
from prism_lsp.sandbox.base import Backend, Limits, RunnerProcess, default_runners

# Time the runner needs beyond a program's own limit: copying the tree, reaping.
_GRACE_S = 10.0
_MIN_PROBE_S = 0.5  # a probe started just before its `until` still needs its fork and tree copy
_START_TIMEOUT_S = 60.0


class RunnerGone(Exception):
    """The runner process ended or stopped answering."""


class RunnerStartFailed(RunnerGone):
    """The runner never came up (sandbox misconfigured, interpreter without pytest...)."""


class RunnerMisbehaved(Exception):
    """The runner said something that is not the answer it owes (malformed, unsolicited, endless)."""


WARM = "warm"  # a job that only starts the runner (`RunnerPool.warm`); never sent to it


@dataclass
class _Job:
    request: RunRequest | ProbeRequest | str
    future: Future = field(default_factory=Future)
    cancel: threading.Event | None = None
    until: float | None = None  # a probe's limit ends by then (`time.monotonic()`), however long it queued


class _Worker:
    def __init__(self, backend: Backend, python: str, limits: Limits):
        self.backend = backend
        self.python = python
        self.limits = limits
        self.runner: RunnerProcess | None = None
        self.info: Ready | None = None
        self._buf = b""

    def _read_line(self, deadline: float) -> bytes:
        """The runner's next line; at most MAX_LINE bytes are ever held (an endless line is an error)."""
        assert self.runner is not None
        fd = self.runner.stdout.fileno()
        chunks = [self._buf] if self._buf else []
        size = len(self._buf)
        newline = self._buf.find(b"\n")
        while newline < 0:
            if size > MAX_LINE:
                raise RunnerMisbehaved(f"the runner wrote a line longer than {MAX_LINE >> 20} MiB")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._buf = b"".join(chunks)
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RunnerGone(self.runner.stderr_tail())
            found = chunk.find(b"\n")
            if found >= 0:
                newline = size + found
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        if newline > MAX_LINE:
            raise RunnerMisbehaved(f"the runner wrote a line longer than {MAX_LINE >> 20} MiB")
        self._buf = data[newline + 1 :]
        return data[:newline]

    def _read_message(self, deadline: float, expected: type):
        """The runner's next message, which must be an `expected`; anything else is misbehaviour."""
        line = self._read_line(deadline)
        try:
            message = decode(line, RUNNER_KINDS)
        except ProtocolError as exc:
            raise RunnerMisbehaved(f"the runner sent a malformed message ({exc})") from None
        if not isinstance(message, expected):
            raise RunnerMisbehaved(f"the runner sent an unsolicited {message.kind!r} message")
        return message

    def ensure(self) -> None:
        if self.runner is not None and self.runner.alive():
            return
        self.stop()
        self.runner = self.backend.spawn(self.python, self.limits)
        try:
            self.info = self._read_message(time.monotonic() + _START_TIMEOUT_S, Ready)
        except (TimeoutError, RunnerGone, RunnerMisbehaved) as exc:
            tail = self.runner.stderr_tail() if self.runner else ""
            self.stop()
            raise RunnerStartFailed(
                f"the runner did not start in the {self.backend.name} sandbox: {tail.strip() or repr(exc)}"
            ) from None

    def run(self, request: RunRequest | ProbeRequest) -> Result | ProbeResult:
        request.output_limit = self.limits.output_limit
        request.pids_max = self.limits.pids_max
        self.ensure()
        assert self.runner is not None
        runner = self.runner
        # The runner reads the tree where its sandbox shows it (Docker: staged alone, cleared after).
        try:
            staged = runner.stage_tree(request.tree)
        except OSError as exc:
            return error_result(request.id, "sandbox", f"cannot place the program's tree for the sandbox: {exc}")
        try:
            return self._exchange(request if staged == request.tree else dataclasses.replace(request, tree=staged))
        finally:
            runner.clear_tree()

    def _exchange(self, request: RunRequest | ProbeRequest) -> Result | ProbeResult:
        """Send `request` to the started runner and read its answer, checking every message."""
        assert self.runner is not None
        self._send(request)
        deadline = time.monotonic() + float(request.timeout_s) + _GRACE_S
        # Known only to this process and, once the program runs in its own process, the runner:
        # a result without it was not written by the runner for this request.
        secret = secrets.token_hex(16)
        try:
            started = self._read_message(deadline, Started)
            if started.id != request.id:
                raise RunnerMisbehaved(f"the runner started request {started.id!r:.40} while given {request.id!r}")
            self._send(Seal(request.id, secret))
            result = self._read_message(deadline, ProbeResult if isinstance(request, ProbeRequest) else Result)
            if result.id != request.id:
                raise RunnerMisbehaved(f"the runner answered request {result.id!r:.40} while running {request.id!r}")
            if not hmac.compare_digest(result.secret, secret):
                raise RunnerMisbehaved("the runner's answer lacks this request's secret")
            return result
        except TimeoutError:
            self.stop()
            return error_result(
                request.id, "timeout", timeout_message(request.timeout_s, " (the sandbox stopped answering)")
            )
        except RunnerMisbehaved as exc:
            self.stop()
            return error_result(request.id, "sandbox", f"{exc}; the runner was replaced")
        except RunnerGone:
            self.stop()
            raise

    def _send(self, message) -> None:
        assert self.runner is not None
        try:
            self.runner.stdin.write((message.to_json() + "\n").encode())
            self.runner.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            raise RunnerGone("the sandbox closed its input") from None

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.kill()
            self.runner = None
        self._buf = b""


class RunnerPool:
    """`workers` warm runners sharing one queue. Thread-safe; close() when done."""

    def __init__(
        self, backend: Backend, *, workers: int | None = None, python: str | None = None, limits: Limits | None = None
    ):
        self.backend = backend
        self.python = python or sys.executable
        self.limits = limits or Limits()
        self.size = max(1, workers or default_runners())
        # How long the reference's run of each suite took here (seconds): its programs' time limit
        # (`engine.time_limits`), so a slow suite is not cut short on every run again.
        self.reference_seconds: dict[tuple, float] = {}
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._workers = [_Worker(backend, self.python, self.limits) for _ in range(self.size)]
        self._threads = [
            threading.Thread(target=self._loop, args=(w,), daemon=True, name=f"prism-runner-{i}")
            for i, w in enumerate(self._workers)
        ]
        self._closed = False
        for t in self._threads:
            t.start()

    def start(self) -> list[Future]:
        """Begin starting every runner now, without waiting (otherwise each starts on its first
        request): the caller goes on with its own work while the sandboxes come up."""
        return [self.submit(WARM) for _ in self._workers]

    def warm(self) -> None:
        """Start every runner now and wait until all are ready."""
        for f in self.start():
            f.result()

    def submit(
        self,
        request: RunRequest | ProbeRequest | str,
        cancel: threading.Event | None = None,
        until: float | None = None,
    ) -> Future:
        """Queue `request`; `cancel` set before it runs: it never runs. `until`: a probe's limit is cut
        to end by then when it starts (a limit set at submission ran on past a build's deadline by
        the time the request waited for a runner: 5-7 s on more-itertools)."""
        if self._closed:
            raise RuntimeError("pool is closed")
        job = _Job(request, cancel=cancel, until=until)
        self._queue.put(job)
        return job.future

    def _loop(self, worker: _Worker) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                worker.stop()
                return
            if not job.future.set_running_or_notify_cancel():
                continue
            request_id = job.request.id if isinstance(job.request, (RunRequest, ProbeRequest)) else None
            if job.cancel is not None and job.cancel.is_set():
                job.future.set_result(error_result(request_id, "cancelled", "cancelled: a newer run replaced this one"))
                continue
            try:
                if job.request == WARM:
                    worker.ensure()
                    job.future.set_result(worker.info)
                    continue
                assert not isinstance(job.request, str), "the only text request is WARM"
                request = job.request
                if job.until is not None and isinstance(request, ProbeRequest):
                    left = max(job.until - time.monotonic(), _MIN_PROBE_S)
                    request = dataclasses.replace(request, timeout_s=min(float(request.timeout_s), left))
                job.future.set_result(worker.run(request))
            except RunnerStartFailed as exc:
                job.future.set_result(error_result(request_id, "sandbox", str(exc)))
            except RunnerGone as exc:
                job.future.set_result(
                    error_result(
                        request_id,
                        "sandbox",
                        f"the sandbox ended while running this program "
                        f"(did the program kill its runner?) {str(exc).strip()}".strip(),
                    )
                )
            except Exception as exc:  # a worker must never die silently
                job.future.set_result(error_result(request_id, "runner", f"internal error: {exc!r}"))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Programs still queued are not run, and those running are cut short: closing happens
        # on exit and Ctrl-C, where nobody waits for their results.
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.future.cancel()
        for _ in self._threads:
            self._queue.put(None)
        for worker in self._workers:
            runner = worker.runner
            if runner is not None:
                runner.kill()
        for t in self._threads:
            t.join(timeout=10)
        self.backend.close()

    def __enter__(self) -> RunnerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

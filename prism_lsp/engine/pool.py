"""A pool of warm runners, one per worker thread, each in its own sandbox.

Callers submit program requests and get futures. A runner that dies (a
candidate killed it) or stops answering is killed whole and replaced; the
request it was running becomes an `error` outcome, never a verdict.
"""

from __future__ import annotations

import json
import os
import queue
import select
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

from prism_lsp.sandbox.base import Backend, Limits, RunnerProcess

# Time the runner needs beyond a program's own limit: copying the tree, reaping.
_GRACE_S = 10.0
_START_TIMEOUT_S = 60.0


class RunnerGone(Exception):
    """The runner process ended or stopped answering."""


class RunnerStartFailed(RunnerGone):
    """The runner never came up (sandbox misconfigured, interpreter without pytest...)."""


@dataclass
class _Job:
    request: dict
    future: Future = field(default_factory=Future)
    cancel: threading.Event | None = None


class _Worker:
    def __init__(self, backend: Backend, python: str, limits: Limits):
        self.backend = backend
        self.python = python
        self.limits = limits
        self.runner: RunnerProcess | None = None
        self.info: dict = {}
        self._buf = b""

    def _read_line(self, deadline: float) -> bytes:
        assert self.runner is not None
        fd = self.runner.stdout.fileno()
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RunnerGone(self.runner.stderr_tail())
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def ensure(self) -> None:
        if self.runner is not None and self.runner.alive():
            return
        self.stop()
        self.runner = self.backend.spawn(self.python, self.limits)
        try:
            self.info = json.loads(self._read_line(time.monotonic() + _START_TIMEOUT_S))
        except (TimeoutError, RunnerGone, ValueError) as exc:
            tail = self.runner.stderr_tail() if self.runner else ""
            self.stop()
            raise RunnerStartFailed(f"the runner did not start in the {self.backend.name} sandbox: "
                                    f"{tail.strip() or repr(exc)}") from None

    def run(self, request: dict) -> dict:
        request = {"output_limit": self.limits.output_limit, "pids_max": self.limits.pids_max, **request}
        self.ensure()
        assert self.runner is not None
        try:
            self.runner.stdin.write((json.dumps(request) + "\n").encode())
            self.runner.stdin.flush()
        except (BrokenPipeError, OSError):
            self.stop()
            raise RunnerGone("the sandbox closed its input")
        deadline = time.monotonic() + float(request.get("timeout_s", 10)) + _GRACE_S
        try:
            return json.loads(self._read_line(deadline))
        except TimeoutError:
            self.stop()
            return {"outcome": "error", "reason": "timeout", "tests": [],
                    "message": f"timed out after {request.get('timeout_s', 10):g} s (the sandbox stopped answering)"}
        except RunnerGone:
            self.stop()
            raise

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.kill()
            self.runner = None
        self._buf = b""


class RunnerPool:
    """`workers` warm runners sharing one queue. Thread-safe; close() when done."""

    def __init__(self, backend: Backend, *, workers: int | None = None, python: str | None = None,
                 limits: Limits | None = None):
        self.backend = backend
        self.python = python or sys.executable
        self.limits = limits or Limits()
        self.size = max(1, workers or os.cpu_count() or 1)
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._workers = [_Worker(backend, self.python, self.limits) for _ in range(self.size)]
        self._threads = [threading.Thread(target=self._loop, args=(w,), daemon=True, name=f"prism-runner-{i}")
                         for i, w in enumerate(self._workers)]
        self._closed = False
        for t in self._threads:
            t.start()

    def warm(self) -> None:
        """Start every runner now (otherwise each starts on its first request)."""
        futures = [self.submit({"op": "warm"}) for _ in self._workers]
        for f in futures:
            f.result()

    def submit(self, request: dict, cancel: threading.Event | None = None) -> Future:
        if self._closed:
            raise RuntimeError("pool is closed")
        job = _Job(request, cancel=cancel)
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
            if job.cancel is not None and job.cancel.is_set():
                job.future.set_result({"outcome": "error", "reason": "cancelled", "tests": [],
                                       "message": "cancelled: a newer run replaced this one"})
                continue
            try:
                if job.request.get("op") == "warm":
                    worker.ensure()
                    job.future.set_result({"outcome": "pass", "info": worker.info})
                    continue
                job.future.set_result(worker.run(job.request))
            except RunnerStartFailed as exc:
                job.future.set_result({"outcome": "error", "reason": "sandbox", "tests": [], "message": str(exc)})
            except RunnerGone as exc:
                job.future.set_result({"outcome": "error", "reason": "sandbox", "tests": [],
                                       "message": f"the sandbox ended while running this program "
                                                  f"(did the program kill its runner?) {str(exc).strip()}".strip()})
            except Exception as exc:  # a worker must never die silently
                job.future.set_result({"outcome": "error", "reason": "runner", "tests": [],
                                       "message": f"internal error: {exc!r}"})

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

    def __enter__(self) -> "RunnerPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""The scheduler without LSP: debounce, cancellation, latest-version-only publication."""

from __future__ import annotations

import asyncio
import threading

from prism_lsp.scheduler import Job, Scheduler


class Recorder:
    def __init__(self, gate: asyncio.Event | None = None) -> None:
        self.executed: list[int] = []
        self.published: list[int] = []
        self.cancels: dict[int, threading.Event] = {}
        self.gate = gate

    async def execute(self, job: Job, cancel: threading.Event) -> str:
        self.executed.append(job.version)
        self.cancels[job.version] = cancel
        if self.gate is not None:
            await self.gate.wait()
        return f"result {job.version}"

    async def publish(self, job: Job, result: str) -> None:
        assert result == f"result {job.version}"
        self.published.append(job.version)


async def test_debounce_runs_only_the_last_of_a_burst():
    rec = Recorder()
    sched = Scheduler(rec.execute, rec.publish)
    for v in range(1, 21):
        sched.submit(Job("file:///a.py", v, f"text {v}"), delay_s=0.05)
    await sched.idle()
    assert rec.executed == [20] and rec.published == [20]


async def test_a_newer_edit_cancels_the_run_in_flight_and_its_event():
    gate = asyncio.Event()
    rec = Recorder(gate)
    sched = Scheduler(rec.execute, rec.publish)
    first = sched.submit(Job("u", 1, "a"))
    while 1 not in rec.cancels:
        await asyncio.sleep(0)
    sched.submit(Job("u", 2, "b"))
    assert rec.cancels[1].is_set() and first.cancelled() or not first.done()
    gate.set()
    await sched.idle()
    assert rec.published == [2]


async def test_a_result_for_an_older_version_is_never_published():
    gate = asyncio.Event()
    rec = Recorder(gate)
    sched = Scheduler(rec.execute, rec.publish)
    sched.submit(Job("u", 1, "a"))
    while not rec.executed:
        await asyncio.sleep(0)
    sched.seen("u", 2)  # run-on-save: the buffer moved on without a new check
    gate.set()
    await sched.idle()
    assert rec.published == [] and sched.stale_dropped == 1


async def test_documents_are_independent_and_forget_stops_work():
    rec = Recorder()
    sched = Scheduler(rec.execute, rec.publish)
    sched.submit(Job("a", 1, ""), delay_s=0.01)
    sched.submit(Job("b", 1, ""), delay_s=0.01)
    sched.submit(Job("c", 1, ""), delay_s=0.01)
    sched.forget("c")
    await sched.idle()
    assert sorted(rec.published) == [1, 1] and sched.latest("c") is None


async def test_a_failing_check_is_reported_and_the_scheduler_keeps_working():
    failures: list[str] = []

    async def boom(job: Job, cancel: threading.Event) -> str:
        if job.version == 1:
            raise RuntimeError("engine exploded")
        return f"result {job.version}"

    async def failed(job: Job, exc: BaseException) -> None:
        failures.append(str(exc))

    rec = Recorder()
    sched = Scheduler(boom, rec.publish, failed)
    await sched.submit(Job("u", 1, ""))
    await sched.submit(Job("u", 2, ""))
    assert failures == ["engine exploded"] and rec.published == [2]


async def test_a_run_dropped_after_seen_is_handed_to_dropped_and_a_superseded_one_is_not():
    gate = asyncio.Event()
    rec = Recorder(gate)
    dropped: list[int] = []

    async def on_dropped(job: Job) -> None:
        dropped.append(job.version)

    sched = Scheduler(rec.execute, rec.publish, dropped=on_dropped)
    sched.submit(Job("u", 1, "a"))
    while not rec.executed:
        await asyncio.sleep(0)
    sched.seen("u", 2)  # run on save: nothing else will end this run's "running"
    gate.set()
    await sched.idle()
    assert rec.published == [] and dropped == [1]

    gate.clear()
    sched.submit(Job("u", 3, "c"))
    while 3 not in rec.executed:
        await asyncio.sleep(0)
    sched.submit(Job("u", 4, "d"))  # the newer check reports for itself
    gate.set()
    await sched.idle()
    assert rec.published == [4] and dropped == [1]

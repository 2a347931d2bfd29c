"""Turn what a forked program run left (its report, its exit status) into a `Result`.

A pass needs pytest's completed session report; anything else is an `error`
with a reason (timeout, exited, crash, output-limit, killed, collection...).
"""

from __future__ import annotations

import os
import signal

from _prism_limits import MEMORY_SETTING, timeout_message
from _prism_protocol import (
    CHILD_KINDS,
    ChildReport,
    Fatal,
    ProtocolError,
    Result,
    RunRequest,
    TestDone,
    TestEntry,
    TestStart,
    decode,
    error_result,
    program_rule,
)

Parsed = tuple[ChildReport | Fatal | None, dict[str, TestEntry], TestStart | None]


def parse(lines: list[bytes]) -> Parsed:
    """(final report or None, finished tests by name, the test still running or None).

    The pipe is the program's own channel (it runs inside pytest's process and may write
    anything there): a line that is not a child message is skipped, never believed.
    """
    final, done, running = None, {}, None
    for raw in lines:
        try:
            message = decode(raw, CHILD_KINDS)
        except ProtocolError:
            continue
        if isinstance(message, TestStart):
            running = message
        elif isinstance(message, TestDone):
            done[message.test.name] = message.test
            running = None
        else:
            final = message
    return final, done, running


def _interrupted(
    base: Result, done: dict[str, TestEntry], running: TestStart | None, reason: str, message: str
) -> Result:
    """A run that never reported: an error, at the test it was in, keeping the tests it finished."""
    tests = list(done.values())
    line = None
    if running is not None:
        line = running.def_line
        message = f"{message} (in {running.name})"
        tests.append(
            TestEntry(name=running.name, outcome="error", line=line, def_line=line, message=message, reason=reason)
        )
    return _with(base, outcome="error", reason=reason, message=message, line=line, tests=tests)


def _with(base: Result, **values) -> Result:
    return Result(**{**base.__dict__, **values})


def interpret(req: RunRequest, parsed: Parsed, status: int | None, timed_out: bool, elapsed_ms: float) -> Result:
    """The outcome of one program run from the lines its child wrote (`parse`) and how it ended.

    Progress lines (TestStart/TestDone per test) let a run that never completes still
    name the test it was in; only the child's final report can make it a pass.
    """
    base = Result(id=req.id, outcome="error", duration_ms=round(elapsed_ms, 2))
    data, done, running = parsed
    if timed_out:
        return _interrupted(base, done, running, "timeout", timeout_message(req.timeout_s))
    if data is None:
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXFSZ:
                return _interrupted(
                    base,
                    done,
                    running,
                    "output-limit",
                    f"the program wrote more output than Prism's limit per program "
                    f"({req.output_limit / (1 << 20):g} MiB) allows",
                )
            if sig == signal.SIGKILL:
                return _interrupted(
                    base,
                    done,
                    running,
                    "killed",
                    "the program was killed (SIGKILL: Prism's memory or process limit of its "
                    f"sandbox, or the program killed itself); raise memory with {MEMORY_SETTING}",
                )
            return _interrupted(
                base, done, running, "crash", f"the program crashed with signal {signal.Signals(sig).name}"
            )
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return _interrupted(
            base,
            done,
            running,
            "exited",
            f"the program exited (status {code}) before pytest finished; a pass needs a completed session",
        )
    if isinstance(data, Fatal):
        return _with(base, reason="runner", message="the runner failed: " + data.message)
    tests = data.tests
    base = _with(base, tests=tests, phases=dict(data.phases))
    if data.collect_errors:
        err = data.collect_errors[0]
        return _with(base, reason="collection", line=err.line, message=err.message)
    if data.interrupted:
        # pytest.exit() or an interrupt: the tests after it never ran, whatever the exit code says.
        stopped = next((t for t in tests if t.reason == "interrupted"), None)
        return _with(base, reason="interrupted", message=data.interrupted, line=stopped.line if stopped else None)
    if not data.finished:
        return _with(base, reason="exited", message="pytest's session did not complete")
    if not tests:
        return _with(base, reason="no-tests", message="no tests were collected from the suite")
    verdict, e = program_rule(tests)
    if verdict == "fail":
        return _with(base, outcome="fail")
    if e is not None:
        return _with(base, reason=e.reason, line=e.line, message=e.message)
    if data.exit_code not in (0, 5):
        return _with(base, reason="pytest", message=f"pytest exited with status {data.exit_code}")
    return _with(base, outcome="pass")


__all__ = ["parse", "interpret", "error_result"]

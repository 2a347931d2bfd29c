"""Turn what a forked program run left (its report, its exit status) into an outcome.

A pass needs pytest's completed session report; anything else is an `error`
with a reason (timeout, exited, crash, output-limit, killed, collection...).
"""

from __future__ import annotations

import json
import os
import signal


def _parse(lines: list[bytes]) -> tuple[dict | None, dict[str, dict], dict | None]:
    """(final report or None, finished tests by name, the test still running or None)."""
    final, done, running = None, {}, None
    for raw in lines:
        try:
            data = json.loads(raw.decode())
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        if "start" in data:
            running = data["start"]
        elif "done" in data:
            done[data["done"]["name"]] = data["done"]
            running = None
        else:
            final = data
    return final, done, running


def _interrupted(base: dict, done: dict[str, dict], running: dict | None, reason: str, message: str) -> dict:
    """A run that never reported: an error, at the test it was in, keeping the tests it finished."""
    tests = list(done.values())
    line = None
    if running is not None:
        line = running.get("def_line")
        message = f"{message} (in {running['name']})"
        tests.append({"name": running["name"], "outcome": "error", "line": line, "def_line": line,
                      "message": message, "reason": reason, "reached_change": None, "assertions": [],
                      "duration_ms": 0.0})
    return {**base, "outcome": "error", "reason": reason, "message": message, "line": line, "tests": tests}


def interpret(req: dict, lines: list[bytes], status: int | None, timed_out: bool, elapsed_ms: float) -> dict:
    """The outcome of one program run from the JSON lines its child wrote and how it ended.

    Progress lines ({"start"}/{"done"} per test) let a run that never completes still
    name the test it was in; only the child's final report can make it a pass.
    """
    base = {"id": req["id"], "duration_ms": round(elapsed_ms, 2), "line": None, "message": "", "reason": None, "tests": []}
    timeout_s = req.get("timeout_s", 10)
    data, done, running = _parse(lines)
    if timed_out:
        return _interrupted(base, done, running, "timeout", f"timed out after {timeout_s:g} s")
    if data is None:
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXFSZ:
                return _interrupted(base, done, running, "output-limit",
                                    "the program wrote more output than the limit allows")
            if sig == signal.SIGKILL:
                return _interrupted(base, done, running, "killed",
                                    "the program was killed (SIGKILL: a memory or process limit, or the program "
                                    "killed itself)")
            return _interrupted(base, done, running, "crash", f"the program crashed with signal {signal.Signals(sig).name}")
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return _interrupted(base, done, running, "exited",
                            f"the program exited (status {code}) before pytest finished; a pass needs a completed session")
    if "fatal" in data:
        return {**base, "outcome": "error", "reason": "runner", "message": "the runner failed: " + data["fatal"]}
    tests = data["tests"]
    base["tests"] = tests
    if data["collect_errors"]:
        err = data["collect_errors"][0]
        return {**base, "outcome": "error", "reason": "collection", "line": err["line"],
                "message": err["message"]}
    if data.get("interrupted"):
        # pytest.exit() or an interrupt: the tests after it never ran, whatever the exit code says.
        stopped = next((t for t in tests if t["reason"] == "interrupted"), None)
        return {**base, "outcome": "error", "reason": "interrupted", "message": data["interrupted"],
                "line": stopped["line"] if stopped else None}
    if not data["finished"]:
        return {**base, "outcome": "error", "reason": "exited", "message": "pytest's session did not complete"}
    if not tests:
        return {**base, "outcome": "error", "reason": "no-tests",
                "message": "no tests were collected from the suite"}
    if any(t["outcome"] == "fail" for t in tests):
        return {**base, "outcome": "fail"}
    errors = [t for t in tests if t["outcome"] == "error"]
    if errors:
        e = errors[0]
        return {**base, "outcome": "error", "reason": e["reason"], "line": e["line"], "message": e["message"]}
    if data["exit_code"] not in (0, 5):
        return {**base, "outcome": "error", "reason": "pytest", "message": f"pytest exited with status {data['exit_code']}"}
    return {**base, "outcome": "pass"}

"""Turn what a forked program run left (its report, its exit status) into an outcome.

A pass needs pytest's completed session report; anything else is an `error`
with a reason (timeout, exited, crash, output-limit, killed, collection...).
"""

from __future__ import annotations

import json
import os
import signal


def interpret(req: dict, raw: bytes, status: int | None, timed_out: bool, elapsed_ms: float) -> dict:
    base = {"id": req["id"], "duration_ms": round(elapsed_ms, 2), "line": None, "message": "", "reason": None, "tests": []}
    timeout_s = req.get("timeout_s", 10)
    if timed_out:
        return {**base, "outcome": "error", "reason": "timeout", "message": f"timed out after {timeout_s:g} s"}
    data = None
    if raw:
        try:
            data = json.loads(raw.decode())
        except ValueError:
            data = None
    if data is None:
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXFSZ:
                return {**base, "outcome": "error", "reason": "output-limit",
                        "message": "the program wrote more output than the limit allows"}
            if sig == signal.SIGKILL:
                return {**base, "outcome": "error", "reason": "killed",
                        "message": "the program was killed (out of memory or a resource limit)"}
            return {**base, "outcome": "error", "reason": "crash",
                    "message": f"the program crashed with signal {signal.Signals(sig).name}"}
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
        return {**base, "outcome": "error", "reason": "exited",
                "message": f"the program exited (status {code}) before pytest finished; a pass needs a completed session"}
    if "fatal" in data:
        return {**base, "outcome": "error", "reason": "runner", "message": "the runner failed: " + data["fatal"]}
    tests = data["tests"]
    base["tests"] = tests
    if data["collect_errors"]:
        err = data["collect_errors"][0]
        return {**base, "outcome": "error", "reason": "collection", "line": err["line"],
                "message": err["message"]}
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

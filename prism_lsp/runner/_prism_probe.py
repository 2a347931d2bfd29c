"""Probe runs: call one entry point of one program on a batch of inputs, inside the sandbox.

Stdlib only, like the rest of the runner. One forked child per program (same
limits as a suite run, on a private copy of the tree); each call has its own
time limit. Per call the child reports, as one JSON line written as soon as
the call returns:

    {"call": i, "value": repr | null, "type": "list", "exception": "ValueError" | null,
     "mutated": bool, "error": null | "timeout" | "repr-limit" | "output-limit" | "bad-input"}

`value` is the result's `repr`, bounded by `repr_limit` characters (a longer
one is an error, never a value). A lazy result (generator, map...) is read
into a list first (`type` keeps its real type). `mutated` says whether the
call changed its arguments. A program that dies, hangs past the batch limit
or floods its output leaves the calls it did not report as errors: errors
are never evidence of a difference.

Request (kind "probe"):
    {"kind": "probe", "id", "tree", "entry": "module:function", "calls": [args source, ...],
     "call_timeout_s", "timeout_s", "memory_mb", "output_limit", "pids_max", "repr_limit"}
`args source` is the Python literal of the tuple of positional arguments, e.g. "([1, 2],)".
Response: {"id", "outcome": "pass" | "error", "reason", "message", "calls": [...], "duration_ms"}
"""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import types

_MAX_TIMEOUTS = 3  # calls of one batch allowed to time out before the program counts as hanging
_LAZY = (types.GeneratorType, map, filter, zip, enumerate, reversed, itertools.chain)


class _CallTimeout(BaseException):
    """Raised by SIGALRM inside a call that ran past its limit."""


def _alarm(_signo, _frame):
    raise _CallTimeout()


def _exception_name(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _one_call(func, source: str, limit_s: float, repr_limit: int) -> dict:
    out = {"value": None, "type": None, "exception": None, "mutated": False, "error": None}
    try:
        args = ast.literal_eval(source)
        if not isinstance(args, tuple):
            raise ValueError("arguments must be a tuple")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        out["error"] = "bad-input"
        return out
    before = repr(args)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        try:
            result = func(*args)
            out["type"] = type(result).__name__
            if isinstance(result, _LAZY):
                result = list(itertools.islice(result, 10_000))
            text = repr(result)
            if len(text) > repr_limit:
                out["error"] = "repr-limit"
            else:
                out["value"] = text
        except _CallTimeout:
            raise
        except BaseException as exc:  # the candidate may raise anything, SystemExit included
            out["exception"] = _exception_name(exc)
        out["mutated"] = repr(args) != before
    except _CallTimeout:
        out.update(value=None, exception=None, error="timeout")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out


def _write(wfd: int, obj: dict) -> None:
    view = memoryview((json.dumps(obj) + "\n").encode())
    while view:
        view = view[os.write(wfd, view):]


def _child(req: dict, wfd: int, scratch: str, set_limits, tree_path) -> None:
    os.setsid()
    os.umask(0o077)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    work = tempfile.mkdtemp(prefix="run-", dir=scratch)
    out_fd = os.open(os.path.join(work, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    tree = os.path.join(work, "tree")
    shutil.copytree(tree_path(req["tree"]), tree, symlinks=True)
    home = os.path.join(work, "home")
    os.makedirs(home)
    os.environ.update(HOME=home, TMPDIR=work, PYTHONHASHSEED="0")
    tempfile.tempdir = None
    os.chdir(tree)
    sys.path.insert(0, tree)
    set_limits(int(req.get("memory_mb", 1024)), int(req.get("output_limit", 16 << 20)), int(req.get("pids_max", 0)))
    signal.signal(signal.SIGALRM, _alarm)
    module_name, _, attr = str(req["entry"]).partition(":")
    limit_s = float(req.get("call_timeout_s", 1.0))
    signal.setitimer(signal.ITIMER_REAL, max(limit_s, 2.0))  # importing gets its own limit
    try:
        func = importlib.import_module(module_name)
        for part in attr.split("."):
            func = getattr(func, part)
    except _CallTimeout:
        _write(wfd, {"fatal": f"importing {module_name} timed out"})
        os._exit(0)
    except BaseException as exc:
        _write(wfd, {"fatal": f"cannot load {req['entry']}: {_exception_name(exc)}"})
        os._exit(0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    repr_limit = int(req.get("repr_limit", 2000))
    output_limit = int(req.get("output_limit", 16 << 20))
    timeouts, flooded = 0, False
    for i, source in enumerate(req["calls"]):
        if timeouts >= _MAX_TIMEOUTS or flooded:  # too slow (or too loud) to probe: the rest stay unjudged
            _write(wfd, {"call": i, "value": None, "type": None, "exception": None, "mutated": False,
                         "error": "output-limit" if flooded else "timeout"})
            continue
        row = _one_call(func, source, limit_s, repr_limit)
        timeouts += row["error"] == "timeout"
        # The output file stops growing at the limit (writes are cut short, not always killed):
        # a call that filled it is an error, whatever it returned.
        if os.fstat(1).st_size >= output_limit:
            flooded = True
            row.update(value=None, exception=None, error="output-limit")
        _write(wfd, {"call": i, **row})
    _write(wfd, {"finished": True})
    os._exit(0)


def run_probe(req: dict, scratch: str, *, set_limits, tree_path, after=None) -> dict:
    """Fork one child for the probe request `req`, enforce the batch limit, collect its calls."""
    start = time.perf_counter()
    calls = list(req.get("calls") or [])
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            _child(req, wfd, scratch, set_limits, tree_path)
        except BaseException as exc:
            try:
                _write(wfd, {"fatal": f"probe set-up failed: {exc!r}"[:300]})
            except OSError:
                pass
        finally:
            os._exit(70)
    os.close(wfd)
    deadline = start + float(req.get("timeout_s", 10))
    buf, size, eof, timed_out = b"", 0, False, False
    while not eof:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([rfd], [], [], min(remaining, 0.05))
        if ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                eof = True
            elif size < (8 << 20):  # a child writing more than this is flooding: the rest is dropped
                buf += chunk
                size += len(chunk)
    os.close(rfd)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    if after is not None:
        after()
    for entry in os.listdir(scratch):
        if entry.startswith("run-"):
            shutil.rmtree(os.path.join(scratch, entry), ignore_errors=True)
    results: dict[int, dict] = {}
    fatal, finished = None, False
    for raw in buf.splitlines():
        try:
            data = json.loads(raw.decode())
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        if "fatal" in data:
            fatal = str(data["fatal"])[:300]
        elif data.get("finished") is True:
            finished = True
        elif isinstance(data.get("call"), int) and 0 <= data["call"] < len(calls):
            results[data["call"]] = {k: data.get(k) for k in ("value", "type", "exception", "mutated", "error")}
    lost = "batch-timeout" if timed_out else "exited"  # not this call's own doing: worth asking again
    out = [results.get(i) or {"value": None, "type": None, "exception": None, "mutated": False, "error": lost}
           for i in range(len(calls))]
    outcome, reason, message = "pass", None, ""
    if fatal:
        outcome, reason, message = "error", "entry", fatal
    elif not finished:
        outcome, reason = "error", lost
        message = "the probe timed out" if timed_out else "the program ended before finishing its calls"
    return {"id": req.get("id"), "outcome": outcome, "reason": reason, "message": message, "calls": out,
            "duration_ms": round((time.perf_counter() - start) * 1000, 2)}

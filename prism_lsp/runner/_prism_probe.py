"""Probe runs: call one entry point of one program on a batch of inputs, inside the sandbox.

Stdlib only, like the rest of the runner. One forked child per program (same
limits as a suite run, on a private copy of the tree); each call has its own
time limit. Per call the child reports, as one JSON line written as soon as
the call returns:

    {"call": i, "value": repr | null, "type": "list", "exception": "ValueError" | null,
     "mutated": bool, "error": null | "timeout" | "repr-limit" | "output-limit" | "bad-input"}

A call that draws from a global random generator (the standard library's, numpy's) is
an error ("random"): its result is chance, not behaviour. `value` is the result's `repr`, bounded by `repr_limit` characters (a longer
one is an error, never a value); numpy arrays and scalars in it are written as the lists and
numbers they hold (`_plain`). A lazy result (generator, map...) is read
into a list first (`type` keeps its real type). A result of a class the
program defines adds `"protocol": [...]`, what its protocol does
(`list(reversed(x))`, `len(x)`, `x[0]`...: see `_prism_instance`). `mutated` says whether the
call changed its arguments. A program that dies, hangs past the batch limit
or floods its output leaves the calls it did not report as errors: errors
are never evidence of a difference.

Request and answer are `_prism_protocol.ProbeRequest` / `ProbeResult` (kind "probe"), handled
like a suite run: the program is forked, isolated and sealed as `_prism_child` does it, the
answer carries the request's seal secret, and the run folder is cleared afterwards.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import os
import signal
import sys
import time
import types
from dataclasses import dataclass
from typing import Any

import _prism_isolation as isolation
import _prism_preload as preload
import _prism_prepared as prepared_session
import _prism_programcode as programcode
from _prism_child import copy_work_tree, enter_program, run_paths
from _prism_cleanup import CleanupFailed
from _prism_instance import is_program_instance, observe
from _prism_limits import set_limits
from _prism_protocol import ProbeRequest, ProbeResult
from _prism_reaper import reap_all
from _prism_supervisor import Settings, clear_after_program, fork_program, sealed_wait

MAX_OPS = 16  # protocol observations kept per call (`_prism_instance` makes at most 10)
_MAX_TIMEOUTS = 3  # calls of one batch allowed to time out before the program counts as hanging
_ARRAY_ITEMS = 100_000  # a larger numpy array keeps its repr (no literal: opaque)
_PLAIN_DEPTH = 8  # containers looked into for numpy values
_LAZY = (types.GeneratorType, map, filter, zip, enumerate, reversed, itertools.chain)


class _CallTimeout(BaseException):
    """Raised by SIGALRM inside a call that ran past its limit."""


def _alarm(_signo, _frame):
    raise _CallTimeout()


def _exception_name(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


_FORM = {"args", "kwargs", "init", "init_kwargs"}


def _one_call(
    func,
    source: str,
    limit_s: float,
    repr_limit: int,
    owner=None,
    name: str = "",
    instance: _Instance | None = None,
    package: str = "",
) -> dict:
    """One call. `source` is an argument tuple, or a dict {args, kwargs[, init, init_kwargs]}: keyword
    arguments, and with `init` a method called on `owner(*init, **init_kwargs)` (a fresh instance).
    With `instance`, a result of a class the program defines is observed through its protocol too
    (`protocol`: see `_prism_instance`), under a time limit of its own. `package`: the entry's top
    package, whose functions may build arguments (see `_built_one`)."""
    out: dict[str, object] = {"value": None, "type": None, "exception": None, "mutated": False, "error": None}
    try:
        args, kwargs, init = ast.literal_eval(source), {}, None
        if isinstance(args, dict) and set(args) <= _FORM:
            form = args
            args, kwargs = form.get("args", ()), form.get("kwargs", {})
            if "init" in form:
                init = (form["init"], form.get("init_kwargs", {}))
                if not isinstance(init[0], tuple) or not isinstance(init[1], dict) or owner is None:
                    raise ValueError("bad constructor arguments")
        if not isinstance(args, tuple) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise ValueError("arguments must be a tuple")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        out["error"] = "bad-input"
        return out
    before = None  # a built argument that raised was never the entry's to change
    states = _random_states()  # before the arguments are built: a random graph is random input
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        try:
            if package:  # arguments the program builds, made here: the host never runs them
                args, kwargs = _built(args, package), {k: _built_one(v, package) for k, v in kwargs.items()}
                if init is not None:
                    init = (_built(init[0], package), {k: _built_one(v, package) for k, v in init[1].items()})
            before = repr((args, kwargs))
            call = func if init is None else getattr(owner(*init[0], **init[1]), name)
            result = call(*args, **kwargs)
            out["type"] = type(result).__name__
            if isinstance(result, _LAZY):
                result = list(itertools.islice(result, 10_000))
            text = repr(_plain(result))
            if len(text) > repr_limit:
                out["error"] = "repr-limit"
            else:
                out["value"] = text
        except _CallTimeout:
            raise
        except BaseException as exc:  # the candidate may raise anything, SystemExit included
            out["exception"] = _exception_name(exc)
        out["mutated"] = before is not None and repr((args, kwargs)) != before
    except _CallTimeout:
        out.update(value=None, exception=None, error="timeout")
        return out
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if instance is not None and out["exception"] is None and not instance.tired():
        _observe(out, result, args, limit_s, repr_limit, instance)
    if _random_states() != states:
        out.pop("protocol", None)
        out.update(value=None, exception=None, error="random")
    return out


def _random_states() -> tuple:
    """The states of the global random generators the program has loaded: the standard library's and
    numpy's. A call that draws from one gives a result that is random, not the program's behaviour:
    numpy's state is not reseeded at fork, so every program forked from one runner draws the same
    numbers, and a program probed in another runner differs from them by chance alone (a mutant
    `spring_layout` never reached was "told apart" so). Read through `sys.modules`: the program's
    own `random.py` may stand there, and a state that cannot be read counts as read differently."""
    states: list[object] = []
    for name in ("random", "numpy.random"):
        module = sys.modules.get(name)
        if module is None:
            states.append(None)
            continue
        try:
            if name == "numpy.random":
                kind, keys, position, gauss, cached = module.get_state(legacy=True)
                states.append((kind, keys.tobytes(), position, gauss, cached))
            else:
                states.append(module.getstate())
        except Exception:  # noqa: BLE001 - whatever the program put there
            states.append(object())
    return tuple(states)


def _plain(value: object, depth: int = 0) -> object:
    """``value`` with numpy's arrays and scalars as the lists and numbers they hold: their reprs
    (`array([...])`, `np.float64(1.5)`) are no literals, so every result of a numerical program was
    opaque. Equal results stay equal, so a difference seen here is one in the result. Containers
    are rebuilt only when they hold such a value; anything else is returned as it is."""
    kind = type(value)
    if kind.__module__ == "numpy":
        if getattr(value, "size", _ARRAY_ITEMS + 1) > _ARRAY_ITEMS:
            return value
        try:
            return value.tolist()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - an object array's items may refuse; the repr decides then
            return value
    if depth >= _PLAIN_DEPTH:
        return value
    if kind is dict:
        assert isinstance(value, dict)
        pairs = [(_plain(k, depth + 1), _plain(v, depth + 1)) for k, v in value.items()]
        same = all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items()))
        return value if same else dict(pairs)
    if kind is list or kind is tuple:
        assert isinstance(value, (list, tuple))
        items = [_plain(item, depth + 1) for item in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return items if kind is list else tuple(items)
    return value


_BUILT = "__prism_built__"
_BUILT_KEYS = {_BUILT, "name", "args", "kwargs"}


def _built_one(value, package: str):
    """An argument the program builds (`prism_lsp.witness.built`: a dict of exactly `_BUILT_KEYS`,
    `"module:function"` in the entry's own package, literal arguments) made by calling that
    function; any other value as it is. What it raises is the call's exception."""
    if not isinstance(value, dict) or set(value) != _BUILT_KEYS or not isinstance(value[_BUILT], str):
        return value
    module_name, _, attr = value[_BUILT].partition(":")
    args, kwargs = value["args"], value["kwargs"]
    if module_name.split(".")[0] != package or not attr or not isinstance(args, tuple) or not isinstance(kwargs, dict):
        return value
    maker: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        maker = getattr(maker, part)
    return maker(*args, **kwargs)


def _built(args: tuple, package: str) -> tuple:
    return tuple(_built_one(a, package) for a in args)


@dataclass
class _Instance:
    """What observing instances needs: the program's tree (a realpath), the methods to observe
    first, and how many observations ran out of time (past `_MAX_TIMEOUTS`, no more are made)."""

    root: str
    focus: tuple[str, ...]
    timeouts: int = 0

    def tired(self) -> bool:
        return self.timeouts >= _MAX_TIMEOUTS


def _observe(out: dict, result: object, args: tuple, limit_s: float, repr_limit: int, instance: _Instance) -> None:
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        if not is_program_instance(result, instance.root):
            return
        rows, timed_out = observe(result, args, instance.focus, repr_limit, _exception_name, _CallTimeout)
        instance.timeouts += timed_out
        if rows:
            out["protocol"] = rows
    except _CallTimeout:  # between two ops: what was observed is lost with it, the call's value is not
        instance.timeouts += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _write(wfd: int, obj: dict) -> None:
    view = memoryview((json.dumps(obj) + "\n").encode())
    while view:
        view = view[os.write(wfd, view) :]


def _child(req: ProbeRequest, wfd: int, settings: Settings) -> None:
    """The forked program: its own copy of the tree, the same isolation and limits as a suite run."""
    preload.forked()
    os.setsid()
    os.umask(0o077)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    work, tree = run_paths(settings.scratch)
    os.mkdir(work, 0o700)  # fails if the last program's folder stayed: never run on its leftovers
    names = copy_work_tree(settings.tree_path(req.tree), tree)
    if settings.namespaces:
        isolation.new_ipc_namespace()
    prepared_session.leave_out()
    enter_program(work, tree, req.pythonpath, names)
    set_limits(req.memory_mb, req.output_limit, req.pids_max, settings.uid_private)
    isolation.seal({0, 1, 2, wfd}, caps=settings.namespaces, own_ipc=settings.namespaces)
    _calls(req, wfd)


def _calls(req: ProbeRequest, wfd: int) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    module_name, _, attr = req.entry.partition(":")
    limit_s = float(req.call_timeout_s)
    signal.setitimer(signal.ITIMER_REAL, max(limit_s, 2.0))  # importing gets its own limit
    try:
        func = owner = importlib.import_module(module_name)
        for part in attr.split("."):
            owner, func = func, getattr(func, part)
    except _CallTimeout:
        _write(wfd, {"fatal": f"importing {module_name} timed out"})
        os._exit(0)
    except BaseException as exc:
        _write(wfd, {"fatal": f"cannot load {req.entry}: {_exception_name(exc)}"})
        os._exit(0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # Which files and standard modules this import took (a hint for the runner, as a suite run's report).
        _write(wfd, {"imported": programcode.imported(), "stdlib": preload.imported()})
    timeouts, flooded = 0, False
    instance = _Instance(os.path.realpath(os.getcwd()), tuple(req.focus))
    for i, source in enumerate(req.calls):
        if timeouts >= _MAX_TIMEOUTS or flooded:  # too slow (or too loud) to probe: the rest stay unjudged
            _write(
                wfd,
                {
                    "call": i,
                    "value": None,
                    "type": None,
                    "exception": None,
                    "mutated": False,
                    "error": "output-limit" if flooded else "timeout",
                },
            )
            continue
        row = _one_call(
            func, source, limit_s, req.repr_limit, owner, attr.rsplit(".", 1)[-1], instance, module_name.split(".")[0]
        )
        timeouts += row["error"] == "timeout"
        # The output file stops growing at the limit (writes are cut short, not always killed):
        # a call that filled it is an error, whatever it returned.
        if os.fstat(1).st_size >= req.output_limit:
            flooded = True
            row.update(value=None, exception=None, error="output-limit")
            row.pop("protocol", None)
        _write(wfd, {"call": i, **row})
    _write(wfd, {"finished": True})
    os._exit(0)


def run_probe(req: ProbeRequest, settings: Settings, started) -> ProbeResult:
    """Fork one child for `req`, enforce the batch limit, collect its calls (the `probe` handler)."""
    start = time.perf_counter()
    # The program's modules earlier children imported, compiled once here (`_prism_programcode`):
    # a probe imports the whole program (networkx: 285 modules, about a second from source).
    programcode.prepare(run_paths(settings.scratch)[1], settings.tree_path(req.tree), {}, [], req.pythonpath, "")
    rfd, wfd = os.pipe()
    pid = fork_program(settings)
    if pid == 0:
        try:
            os.close(rfd)
            _child(req, wfd, settings)
        except BaseException as exc:
            try:
                _write(wfd, {"fatal": f"probe set-up failed: {exc!r}"[:300]})
            except OSError:
                pass
        finally:
            os._exit(70)
    os.close(wfd)
    secret, (chunks, _status, timed_out, _ended) = sealed_wait(
        pid, rfd, req.id, start + float(req.timeout_s), started, settings
    )
    reap_all(settings.namespaces)
    raw = b"".join(chunks)
    _learn(raw)
    result = _interpret(req, raw, timed_out, start)
    result.secret = secret
    try:
        clear_after_program(settings)
    except CleanupFailed as exc:
        exc.result = ProbeResult(
            id=req.id,
            outcome="error",
            reason="sandbox",
            message="the program left files that could not be removed; its runner was replaced",
            secret=secret,
        )
        raise
    return result


def _learn(raw: bytes) -> None:
    """Pass the child's hint line (what its import took) to the runner's caches; never a verdict."""
    for line in raw.splitlines():
        if line.startswith(b'{"imported"'):
            try:
                data = json.loads(line.decode())
            except ValueError:
                return
            if isinstance(data, dict):
                programcode.learn(data.get("imported"))
                preload.learn(data.get("stdlib"))
            return


def _interpret(req: ProbeRequest, raw: bytes, timed_out: bool, start: float) -> ProbeResult:
    results: dict[int, dict] = {}
    fatal, finished = None, False
    for line in raw.splitlines():
        try:
            data = json.loads(line.decode())
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        if "fatal" in data:
            fatal = str(data["fatal"])[:300]
        elif data.get("finished") is True:
            finished = True
        elif isinstance(data.get("call"), int) and 0 <= data["call"] < len(req.calls):
            results[data["call"]] = {k: data.get(k) for k in ("value", "type", "exception", "mutated", "error")}
            if isinstance(data.get("protocol"), list):
                results[data["call"]]["protocol"] = data["protocol"][:MAX_OPS]
    lost = "batch-timeout" if timed_out else "exited"  # not this call's own doing: worth asking again
    calls = [
        results.get(i) or {"value": None, "type": None, "exception": None, "mutated": False, "error": lost}
        for i in range(len(req.calls))
    ]
    outcome, reason, message = "pass", None, ""
    if fatal:
        outcome, reason, message = "error", "entry", fatal
    elif not finished:
        outcome, reason = "error", lost
        message = "the probe timed out" if timed_out else "the program ended before finishing its calls"
    return ProbeResult(
        id=req.id,
        outcome=outcome,
        reason=reason,
        message=message,
        calls=calls,
        duration_ms=round((time.perf_counter() - start) * 1000, 2),
    )

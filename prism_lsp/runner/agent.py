"""The runner: a warm pytest process that lives inside the sandbox.

Self-contained on purpose (stdlib + pytest only): the sandbox backends start
it by file path, and the Docker backend copies this one file into containers.

Protocol, JSON lines on stdin/stdout:
  startup  -> {"ready": true, "python": "...", "pytest": "...", "pid": N}
  request  <- {"id", "tree", "suite_rel", "suite_text", "changed": {rel: [lines]},
               "timeout_s", "memory_mb", "output_limit", "tests": [names] | null}
  response -> {"id", "outcome", "reason", "message", "line", "tests": [...], "duration_ms"}

Each program runs in a forked child (pytest was imported once, here) working on
a private copy of the tree with the suite written in. The child reports through
a pipe only after pytest's session completed, so a program that leaves early
(`os._exit`, a killed interpreter) is an error, never a pass.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback

os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True

import pytest  # noqa: E402  (imported once, before any fork: that is the point)

import _pytest.config  # noqa: E402,F401
import _pytest.python  # noqa: E402,F401
import _pytest.assertion.rewrite  # noqa: E402,F401
from importlib import import_module  # noqa: E402

for _name in _pytest.config.default_plugins:
    # Import every built-in plugin module now so that each forked run finds it loaded.
    try:
        import_module(f"_pytest.{_name}")
    except ImportError:
        pass

# Built-in plugins whose work we never use; measured to be most of pytest's own start-up.
# `logging` (caplog), `legacypath` (tmpdir) and `cacheprovider` stay out of this list
# only where suites commonly need their fixtures.
# `terminal` must stay: assertion explanations ask it for a terminal writer.
_PLUGINS_OFF = ["warnings", "doctest", "junitxml", "pastebin", "stepwise",
                "faulthandler", "cacheprovider", "unraisableexception", "threadexception",
                "setuponly", "setupplan", "pastebin"]
_MAX_TEXT = 2000
_PR_SET_CHILD_SUBREAPER = 36


def _short(text: str, limit: int = _MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Collector:
    """pytest plugin that records, per test, outcome, assertion lines and reached-change."""

    def __init__(self, suite_path: str, changed: dict[str, list[int]]):
        self.suite_path = os.path.realpath(suite_path)
        self.tests: dict[str, dict] = {}
        self.collect_errors: list[dict] = []
        self.session_finished = False
        self.collected = 0
        self.changed = {os.path.realpath(k): set(v) for k, v in changed.items() if v}
        self._hits: set[str] = set()
        self._current = ""


    # -- helpers ---------------------------------------------------------
    def _entry(self, item) -> dict:
        name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.nodeid
        entry = self.tests.get(item.nodeid)
        if entry is None:
            def_line = None
            if item.location and item.location[1] is not None:
                def_line = item.location[1] + 1
            entry = {"name": name, "outcome": "pass", "line": None, "def_line": def_line,
                     "message": "", "reason": None, "reached_change": None, "assertions": [],
                     "duration_ms": 0.0}
            self.tests[item.nodeid] = entry
        return entry

    def _suite_line(self, excinfo) -> int | None:
        line = None
        for entry in excinfo.traceback:
            try:
                if os.path.realpath(str(entry.path)) == self.suite_path:
                    line = entry.lineno + 1
            except Exception:
                continue
        return line

    # -- which tests reach the changed lines ------------------------------
    # The changed modules are compiled with a probe call in front of every
    # statement that covers a changed line (see `_ProbeFinder`), so measuring
    # costs nothing outside those statements; a tracer would slow every call.
    def probe(self, _line: int) -> None:
        if self._current:
            self._hits.add(self._current)

    def start_probes(self) -> None:
        if self.changed:
            import builtins

            builtins.__prism_probe__ = self.probe
            sys.meta_path.insert(0, _ProbeFinder(self.changed, self.suite_path))

    def finish_probes(self) -> None:
        if self.changed:
            for nodeid, entry in self.tests.items():
                entry["reached_change"] = nodeid in self._hits

    # -- hooks -----------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._current = item.nodeid
        start = time.perf_counter()
        try:
            yield
        finally:
            self._current = ""
            self._entry(item)["duration_ms"] = round((time.perf_counter() - start) * 1000, 2)

    def pytest_assertion_pass(self, item, lineno, orig, expl):
        try:
            if os.path.realpath(str(item.path)) != self.suite_path:
                return
        except Exception:
            return
        self._entry(item)["assertions"].append({"line": lineno, "outcome": "pass", "explanation": _short(expl, 300)})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        entry = self._entry(item)
        if call.excinfo is None or report.skipped:
            return
        if report.when == "call" and hasattr(report, "wasxfail"):
            return
        exc = call.excinfo
        line = self._suite_line(exc)
        if isinstance(exc.value, MemoryError):
            entry.update(outcome="error", reason="memory", line=line,
                         message="the program ran out of memory (memory limit reached)")
            return
        if report.when != "call":
            if entry["outcome"] != "fail":
                entry.update(outcome="error", reason="fixture", line=line,
                             message=_short(f"error in {report.when}: " + exc.exconly()))
            return
        if isinstance(exc.value, AssertionError):
            full = str(exc.value) or exc.exconly()
            entry["assertions"].append({"line": line, "outcome": "fail", "explanation": _short(full, 300)})
            # The report's message is pytest's comparison line (`assert 3 == 2`); the
            # `where` lines stay in the assertion's explanation.
            lines = full.splitlines() or [full]
            compared = next((ln for ln in lines if ln.startswith("assert ")), None)
            message = lines[0] if compared is None or compared == lines[0] else f"{lines[0]} — {compared}"
        else:
            message = exc.exconly()
        entry.update(outcome="fail", line=line, message=_short(message))

    def pytest_collectreport(self, report):
        if report.failed:
            text = str(report.longrepr)
            line = None
            base = re.escape(os.path.basename(self.suite_path))
            for pattern in (base + r'", line (\d+)', base + r":(\d+)"):
                found = re.findall(pattern, text)
                if found:
                    line = int(found[-1])
                    break
            self.collect_errors.append({"line": line, "message": _short(_collect_summary(text))})

    def pytest_collection_modifyitems(self, items):
        self.collected = len(items)

    def pytest_sessionfinish(self, session, exitstatus):
        self.session_finished = True


class _ProbeFinder:
    """Import hook that compiles the candidate's changed files with probes at changed lines."""

    def __init__(self, changed: dict[str, set[int]], suite_path: str):
        self.changed = {p: lines for p, lines in changed.items() if p != suite_path}

    def find_spec(self, fullname, path=None, target=None):
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin:
            return None
        lines = self.changed.get(os.path.realpath(spec.origin))
        if lines is None:
            return None
        spec.loader = _ProbeLoader(fullname, spec.origin, lines)
        return spec


def _probe_loader_class():
    import ast
    from importlib.machinery import SourceFileLoader

    class ProbeLoader(SourceFileLoader):
        def __init__(self, fullname, path, lines):
            super().__init__(fullname, path)
            self.lines = lines

        def source_to_code(self, data, path, *, _optimize=-1):
            try:
                tree = ast.parse(data, filename=path)
            except SyntaxError:
                return super().source_to_code(data, path)
            _insert_probes(tree, self.lines, ast)
            return compile(tree, path, "exec", dont_inherit=True)

    return ProbeLoader


def _covers(stmt, lines, ast) -> bool:
    end = stmt.end_lineno or stmt.lineno
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.AST) and hasattr(body[0], "lineno"):
        end = max(stmt.lineno, body[0].lineno - 1)  # a compound statement's own line(s): its header
    return any(stmt.lineno <= ln <= end for ln in lines)


def _insert_probes(tree, lines: set[int], ast) -> None:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or not stmts or not isinstance(stmts[0], ast.stmt):
                continue
            out = []
            for stmt in stmts:
                if _covers(stmt, lines, ast) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    call = ast.Expr(ast.Call(ast.Name("__prism_probe__", ast.Load()), [ast.Constant(stmt.lineno)], []))
                    out.append(ast.copy_location(call, stmt))
                out.append(stmt)
            setattr(node, field, out)
    ast.fix_missing_locations(tree)


def _ProbeLoader(fullname, path, lines):
    global _PROBE_LOADER
    if _PROBE_LOADER is None:
        _PROBE_LOADER = _probe_loader_class()
    return _PROBE_LOADER(fullname, path, lines)


_PROBE_LOADER = None


def _collect_summary(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    if lines:
        return "\n".join(ln[1:].strip() for ln in lines[-6:])
    return "\n".join(text.strip().splitlines()[-6:])


def _pytest_args(tree: str) -> list[str]:
    args = ["-q", "--no-header", "--tb=line", "-o", "enable_assertion_pass_hook=true", "--rootdir", tree, "-W", "ignore"]
    for name in _PLUGINS_OFF:
        args += ["-p", f"no:{name}"]
    return args


def _set_limits(memory_mb: int, output_limit: int) -> None:
    import resource

    def cap(kind, value):
        try:
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass

    cap(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    cap(resource.RLIMIT_FSIZE, output_limit)
    cap(resource.RLIMIT_CORE, 0)


def _child(req: dict, wfd: int, scratch: str) -> None:
    """Run one program in this forked process; write one JSON result to `wfd`."""
    os.setsid()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    work = tempfile.mkdtemp(prefix="run-", dir=scratch)
    out_fd = os.open(os.path.join(work, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    tree = os.path.join(work, "tree")
    shutil.copytree(req["tree"], tree, symlinks=True)
    suite_path = os.path.join(tree, req["suite_rel"])
    os.makedirs(os.path.dirname(suite_path), exist_ok=True)
    with open(suite_path, "w", encoding="utf-8") as fh:
        fh.write(req["suite_text"])
    home = os.path.join(work, "home")
    os.makedirs(home)
    os.environ.update(HOME=home, TMPDIR=work, PYTHONHASHSEED="0")
    os.chdir(tree)
    sys.path.insert(0, tree)
    _set_limits(int(req.get("memory_mb", 1024)), int(req.get("output_limit", 16 << 20)))
    if req.get("command"):
        _run_command(req["command"], wfd)
    changed = {os.path.join(tree, rel): lines for rel, lines in (req.get("changed") or {}).items()}
    collector = Collector(suite_path, changed)
    target = req["suite_rel"]
    args = [f"{target}::{t}" for t in req["tests"]] if req.get("tests") else [target]
    args += _pytest_args(tree)
    start = time.perf_counter()
    collector.start_probes()
    try:
        code = pytest.main(args, plugins=[collector])
        if code == 4 and not collector.tests and not collector.collect_errors:
            # The tree's own config asked for an option of a plugin we switched off.
            collector = Collector(suite_path, changed)
            code = pytest.main([a for a in args if not a.startswith("no:") and a != "-p"], plugins=[collector])
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        code = -1
        collector.collect_errors.append({"line": None, "message": _short("".join(traceback.format_exception_only(type(exc), exc)))})
    collector.finish_probes()
    result = {"exit_code": int(code) if isinstance(code, int) else -1, "finished": collector.session_finished,
              "tests": list(collector.tests.values()), "collect_errors": collector.collect_errors,
              "collected": collector.collected, "duration_ms": round((time.perf_counter() - start) * 1000, 2)}
    payload = (json.dumps(result) + "\n").encode()
    view = memoryview(payload)
    while view:
        n = os.write(wfd, view)
        view = view[n:]
    os._exit(0)


def _run_command(command: str, wfd: int) -> None:
    """Judge by a task's own test command (non-pytest tasks): exit status 0 is a pass."""
    import subprocess

    start = time.perf_counter()
    code = subprocess.call(["/bin/sh", "-c", command], stdin=subprocess.DEVNULL)
    name = "test command"
    test = {"name": name, "outcome": "pass" if code == 0 else "fail", "line": None, "def_line": None,
            "message": "" if code == 0 else f"`{command}` exited with status {code}", "reason": None,
            "reached_change": None, "assertions": [], "duration_ms": 0.0}
    result = {"exit_code": 0, "finished": True, "tests": [test], "collect_errors": [], "collected": 1,
              "duration_ms": round((time.perf_counter() - start) * 1000, 2)}
    os.write(wfd, (json.dumps(result) + "\n").encode())
    os._exit(0)


def _descendants(root_pid: int) -> list[int]:
    """Every live process below `root_pid` (orphans reparent to us: we are a subreaper)."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents[int(name)] = ppid
    found = []
    for pid in parents:
        p, seen = pid, 0
        while p in parents and seen < 4096:
            p = parents[p]
            seen += 1
            if p == root_pid:
                found.append(pid)
                break
    return found


def _reap_all() -> None:
    """Kill and reap every process this runner's programs left behind."""
    me = os.getpid()
    for _ in range(50):
        pids = _descendants(me)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        while True:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not pids:
            return
        time.sleep(0.005)


def _interpret(req: dict, raw: bytes, status: int | None, timed_out: bool, elapsed_ms: float) -> dict:
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


def run_one(req: dict, scratch: str) -> dict:
    """Fork a child for `req`, enforce its wall-clock limit, and interpret what it left."""
    rfd, wfd = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            _child(req, wfd, scratch)
        except BaseException:
            # Our own failure before pytest could report (e.g. the tree is unreadable): say why.
            try:
                os.write(wfd, (json.dumps({"fatal": _short(traceback.format_exc())}) + "\n").encode())
            except OSError:
                pass
        finally:
            os._exit(70)
    os.close(wfd)
    deadline = start + float(req.get("timeout_s", 10))
    chunks: list[bytes] = []
    status = None
    timed_out = False
    limit = 32 << 20
    size = 0
    eof = False
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            timed_out = True
            break
        if not eof:
            ready, _, _ = select.select([rfd], [], [], min(remaining, 0.05))
            if ready:
                chunk = os.read(rfd, 1 << 16)
                if not chunk:
                    eof = True
                elif size < limit:
                    chunks.append(chunk)
                    size += len(chunk)
        try:
            done, st = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, st = pid, 0
        if done == pid:
            status = st
            break
        if eof:
            time.sleep(0.002)
    if not timed_out:
        # Drain what the child wrote just before it exited.
        while True:
            ready, _, _ = select.select([rfd], [], [], 0)
            if not ready:
                break
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            if size < limit:
                chunks.append(chunk)
                size += len(chunk)
    os.close(rfd)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    if status is None:
        try:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass
    _reap_all()
    elapsed = (time.perf_counter() - start) * 1000
    raw = b"".join(chunks).strip().splitlines()
    result = _interpret(req, raw[-1] if raw else b"", status, timed_out, elapsed)
    for entry in os.listdir(scratch):
        if entry.startswith("run-"):
            shutil.rmtree(os.path.join(scratch, entry), ignore_errors=True)
    return result


_WARMUP_SUITE = """
import pytest

@pytest.fixture
def value():
    return 3

@pytest.mark.parametrize("x", [1, 2])
def test_param(x, value, tmp_path):
    assert x < value

def test_fails():
    assert [1, 2] == [1, 3]

def test_raises():
    with pytest.raises(ZeroDivisionError):
        1 / 0
"""


def _warm_up(scratch: str) -> None:
    """Run one throwaway session here, before any fork, so every forked run inherits
    the modules pytest imports lazily and its filled caches (measured: about a third
    of a small run's time)."""
    import importlib

    req = {"id": "warm-up", "suite_rel": "test_prism_warmup.py", "suite_text": _WARMUP_SUITE, "changed": {}}
    work = tempfile.mkdtemp(prefix="warm-", dir=scratch)
    try:
        tree = os.path.join(work, "tree")
        os.makedirs(tree)
        req["tree"] = tree
        saved_out, saved_err = os.dup(1), os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        cwd = os.getcwd()
        modules = set(sys.modules)
        try:
            suite_path = os.path.join(tree, req["suite_rel"])
            with open(suite_path, "w") as fh:
                fh.write(_WARMUP_SUITE)
            os.chdir(tree)
            collector = Collector(suite_path, {})
            pytest.main([req["suite_rel"], *_pytest_args(tree)], plugins=[collector])
        finally:
            os.chdir(cwd)
            # pytest's reports sit in sys.stdout's buffer when stdout is a pipe (pytest 7 in
            # Debian's image): flush them into /dev/null, not into the protocol stream.
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved_out, 1)
            os.dup2(saved_err, 2)
            for fd in (saved_out, saved_err, null):
                os.close(fd)
            for name in set(sys.modules) - modules:
                if name.startswith("test_prism_warmup") or name == "conftest":
                    del sys.modules[name]
            importlib.invalidate_caches()
    except Exception:
        pass  # warming is an optimisation only
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    scratch = tempfile.gettempdir()
    if len(sys.argv) > 2 and sys.argv[1] == "--scratch":
        scratch = sys.argv[2]
        os.makedirs(scratch, exist_ok=True)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except Exception:
        pass
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _warm_up(scratch)
    # Everything imported so far is shared with every forked run: keep the collector off it.
    import gc

    gc.collect()
    gc.freeze()
    out = sys.stdout
    out.write(json.dumps({"ready": True, "python": sys.version.split()[0], "pytest": pytest.__version__,
                          "pid": os.getpid()}) + "\n")
    out.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError:
            out.write(json.dumps({"id": None, "outcome": "error", "reason": "protocol",
                                  "message": "request is not JSON"}) + "\n")
            out.flush()
            continue
        try:
            result = run_one(req, scratch)
        except Exception as exc:  # the runner must answer every request
            result = {"id": req.get("id"), "outcome": "error", "reason": "runner", "line": None, "tests": [],
                      "message": _short(f"runner failure: {exc!r}"), "duration_ms": 0}
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()

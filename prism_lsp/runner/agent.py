"""The runner: a warm pytest process that lives inside the sandbox.

Self-contained on purpose (stdlib + pytest only, with its `_prism_*` sibling
modules): the sandbox backends start it by file path, and the Docker backend
mounts this folder into containers whose Python has nothing of Prism.

Protocol, JSON lines on stdin/stdout:
  startup  -> {"ready": true, "python": "...", "pytest": "...", "pid": N}
  request  <- {"id", "tree", "suite_rel", "suite_text", "changed": {rel: [lines]},
               "timeout_s", "memory_mb", "output_limit", "tests": [names] | null,
               "command": shell command | null, "pythonpath": [tree-relative folders]}
  response -> {"id", "outcome", "reason", "message", "line", "tests": [...], "duration_ms"}

Each program runs in a forked child (pytest was imported once, here) working on
a private copy of the tree with the suite written in. The child reports through
a pipe only after pytest's session completed, so a program that leaves early
(`os._exit`, a killed interpreter) is an error, never a pass.
"""

from __future__ import annotations

import json
import os
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

from _prism_collector import Collector, short  # noqa: E402
from _prism_outcome import interpret  # noqa: E402
from _prism_probe import run_probe  # noqa: E402
from _prism_reaper import reap_all  # noqa: E402

# Our own folder must not stay importable for the programs we run.
sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != os.path.dirname(os.path.realpath(__file__))]

for _name in _pytest.config.default_plugins:
    # Import every built-in plugin module now so that each forked run finds it loaded.
    try:
        import_module(f"_pytest.{_name}")
    except ImportError:
        pass

# Built-in plugins whose work a judged run never uses (measured: much of pytest's start-up).
# `logging` (caplog) and `legacypath` (tmpdir) stay on because suites commonly use their
# fixtures; `terminal` stays because assertion explanations ask it for a terminal writer;
# `warnings` stays because `filterwarnings("error")` marks and ini options turn warnings into
# failures, and verdicts must match plain pytest's.
_PLUGINS_OFF = ["doctest", "junitxml", "pastebin", "stepwise", "faulthandler", "cacheprovider",
                "unraisableexception", "threadexception", "setuponly", "setupplan"]
_PR_SET_CHILD_SUBREAPER = 36
# (host prefix, path here) when the sandbox mounts the tree cache elsewhere (Docker): requests name host paths.
_trees_map: tuple[str, str] | None = None
_uid_private = False  # this runner's uid is its own (set by main from --uid-private)
# Entries of /tmp and /dev/shm present once the runner was ready (None: /tmp is the host's).
_shared_before: dict[str, set[str]] | None = None
_SHARED_DIRS = ("/tmp", "/dev/shm")


def _tree_path(path: str) -> str:
    if _trees_map and (path == _trees_map[0] or path.startswith(_trees_map[0] + "/")):
        return _trees_map[1] + path[len(_trees_map[0]):]
    return path


def _pytest_args(tree: str) -> list[str]:
    args = ["-q", "--no-header", "--tb=line", "-o", "enable_assertion_pass_hook=true", "--rootdir", tree]
    for name in _PLUGINS_OFF:
        args += ["-p", f"no:{name}"]
    return args


def _own_user_namespace() -> bool:
    try:
        with open("/proc/self/uid_map") as fh:
            return fh.read().split() != ["0", "0", "4294967295"]
    except OSError:
        return False


def _set_limits(memory_mb: int, output_limit: int, pids_max: int) -> None:
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
    # Without a cgroup, the process count is bounded by RLIMIT_NPROC, which the kernel counts
    # per uid in a user namespace: only meaningful (and only safe) inside our own namespace or
    # under a uid given to this runner alone (`--uid-private`, Docker), and not for root,
    # whom the kernel exempts.
    if pids_max and os.getuid() != 0 and (_uid_private or _own_user_namespace()):
        cap(resource.RLIMIT_NPROC, pids_max)


def _child(req: dict, wfd: int, scratch: str) -> None:
    """Run one program in this forked process; write one JSON result to `wfd`."""
    os.setsid()
    # Files the program creates are its own: other runners of a shared sandbox run as other uids.
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
    shutil.copytree(_tree_path(req["tree"]), tree, symlinks=True)
    suite_path = os.path.join(tree, req["suite_rel"])
    os.makedirs(os.path.dirname(suite_path), exist_ok=True)
    with open(suite_path, "w", encoding="utf-8") as fh:
        fh.write(req["suite_text"])
    home = os.path.join(work, "home")
    os.makedirs(home)
    os.environ.update(HOME=home, TMPDIR=work, PYTHONHASHSEED="0")
    tempfile.tempdir = None  # forget the runner's cached one: tmp_path and friends land in this run's folder
    os.chdir(tree)
    sys.path.insert(0, tree)
    # The task's import roots (a `src/` layout) come first, so the program imports this tree's code
    # and never a checkout the interpreter's venv has installed editable.
    for rel in reversed(req.get("pythonpath") or []):
        sys.path.insert(0, os.path.join(tree, rel))
    _set_limits(int(req.get("memory_mb", 1024)), int(req.get("output_limit", 16 << 20)), int(req.get("pids_max", 0)))
    if req.get("command"):
        _run_command(req["command"], wfd)
    changed = {os.path.join(tree, rel): lines for rel, lines in (req.get("changed") or {}).items()}
    collector = Collector(suite_path, changed)
    collector.progress = lambda event: _write_line(wfd, event, tree)
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
            collector.progress = lambda event: _write_line(wfd, event, tree)
            code = pytest.main([a for a in args if not a.startswith("no:") and a != "-p"], plugins=[collector])
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        code = -1
        collector.collect_errors.append({"line": None, "message": short("".join(traceback.format_exception_only(type(exc), exc)))})
    collector.finish_probes()
    result = {"exit_code": int(code) if isinstance(code, int) else -1, "finished": collector.session_finished,
              "interrupted": collector.interrupted,
              "tests": list(collector.tests.values()), "collect_errors": collector.collect_errors,
              "collected": collector.collected, "duration_ms": round((time.perf_counter() - start) * 1000, 2)}
    _write_line(wfd, result, tree)
    os._exit(0)


def _write_line(wfd: int, obj: dict, tree: str | None = None) -> None:
    """One JSON line to the parent, whole even when the pipe is full.

    With `tree`, paths inside this run's private copy are written relative to it: a
    message then reads `solution.py`, and the same error on two candidates is one text.
    """
    text = json.dumps(obj)
    if tree:
        text = text.replace(json.dumps(tree + os.sep)[1:-1], "")
    view = memoryview((text + "\n").encode())
    while view:
        n = os.write(wfd, view)
        view = view[n:]


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
    _write_line(wfd, result)
    os._exit(0)


def _remember_shared_files(scratch: str) -> None:
    """Note what /tmp and /dev/shm hold now; called once the runner is ready, only when the
    sandbox gave it a private /tmp (`--private-tmp`), never on the host's own."""
    global _shared_before
    _shared_before = {}
    for folder in (*_SHARED_DIRS, scratch):
        try:
            _shared_before[folder] = set(os.listdir(folder))
        except OSError:
            pass


def _forget_shared_files() -> None:
    """Remove what the last program left in /tmp and /dev/shm, so the next program run by
    this runner (another candidate) cannot read it: each run must see the same empty world."""
    if _shared_before is None:
        return
    me = os.getuid()
    for folder, before in _shared_before.items():
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for name in entries:
            path = os.path.join(folder, name)
            try:
                if name in before or os.lstat(path).st_uid != me:
                    continue  # ours from before, or another runner's (Docker): not this run's
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.unlink(path)
            except OSError:
                pass


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
                os.write(wfd, (json.dumps({"fatal": short(traceback.format_exc())}) + "\n").encode())
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
    reap_all()
    _forget_shared_files()
    elapsed = (time.perf_counter() - start) * 1000
    raw = b"".join(chunks).strip().splitlines()
    result = interpret(req, raw, status, timed_out, elapsed)
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
    global _trees_map, _uid_private
    opts = dict(zip(sys.argv[1::2], sys.argv[2::2]))  # --scratch DIR, --trees HOST=HERE, --uid-private 1
    _uid_private = opts.get("--uid-private") == "1"
    private_tmp = opts.get("--private-tmp") == "1"
    scratch = opts.get("--scratch") or tempfile.gettempdir()
    if "--scratch" in opts:
        # Private to this runner: other runners of a shared sandbox may run beside it under other uids.
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        st = os.lstat(scratch)
        if not os.path.isdir(scratch) or os.path.islink(scratch) or st.st_uid != os.getuid():
            sys.exit(f"prism runner: scratch folder {scratch} exists and is not ours; refusing it")
        os.chmod(scratch, 0o700)
        # The warm-up's tmp_path too: a shared /tmp/pytest-of-<user> belongs to whichever runner made it first.
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = None
    if "--trees" in opts:
        host, _, here = opts["--trees"].partition("=")
        _trees_map = (host.rstrip("/"), here.rstrip("/"))
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except Exception:
        pass
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    _warm_up(scratch)
    if private_tmp:
        _remember_shared_files(scratch)
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
            if req.get("kind") == "probe":  # calls of an entry point, for witness search
                result = run_probe(req, scratch, set_limits=_set_limits, tree_path=_tree_path,
                                   after=lambda: (reap_all(), _forget_shared_files()))
            else:
                result = run_one(req, scratch)
        except Exception as exc:  # the runner must answer every request
            result = {"id": req.get("id"), "outcome": "error", "reason": "runner", "line": None, "tests": [],
                      "message": short(f"runner failure: {exc!r}"), "duration_ms": 0}
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()

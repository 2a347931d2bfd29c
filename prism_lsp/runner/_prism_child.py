"""The forked child: run one program (its tree plus the suite) under pytest, report through a pipe.

Runs in a process forked from the warm runner, so pytest and its plugins are already
imported. It works on a private copy of the tree with the suite written in, and writes
protocol messages (`_prism_protocol`: TestStart/TestDone per test, then one ChildReport or
Fatal) to its pipe; stdout and stderr of the program go to a log file nobody reads.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
import traceback

import _prism_isolation as isolation
import _prism_limits as limits
import _prism_preload as preload
import _prism_prepared as prepared_session
import _prism_programcode as programcode
import _prism_speedups as speedups
import _prism_suitecode as suitecode
import pytest
from _prism_collector import Collector, short
from _prism_protocol import ChildReport, CollectError, Fatal, RunRequest, TestEntry

# Built-in plugins a judged run switches off unless its set-up reaches them (`_prism_plugins`;
# measured: much of pytest's start-up). `logging` (caplog) and `legacypath` (tmpdir) stay on
# because suites commonly use their fixtures; `terminal` stays because assertion explanations ask
# it for a terminal writer; `warnings` stays because `filterwarnings("error")` marks and ini
# options turn warnings into failures, and verdicts must match plain pytest's.
PLUGINS_OFF = [
    "doctest",
    "junitxml",
    "pastebin",
    "stepwise",
    "faulthandler",
    "cacheprovider",
    "unraisableexception",
    "threadexception",
    "setuponly",
    "setupplan",
]


def pytest_args(tree: str, config: str | None = None, plugins_off: list[str] = PLUGINS_OFF) -> list[str]:
    """pytest's arguments for a run in `tree`; `config`: the only configuration file read;
    `plugins_off`: the built-in plugins switched off (those the run's set-up does not reach)."""
    args = ["-q", "--no-header", "--tb=line", "-o", "enable_assertion_pass_hook=true", "--rootdir", tree]
    if config:
        args += ["-c", config]
    for name in plugins_off:
        args += ["-p", f"no:{name}"]
    return args


def write_message(wfd: int, message, tree: str | None = None) -> None:
    """One protocol line to the runner, whole even when the pipe is full.

    With `tree`, paths inside this run's private copy are written relative to it: a
    message then reads `solution.py`, and the same error on two candidates is one text.
    """
    text = message.to_json()
    if tree:
        text = text.replace(json_escaped(tree + os.sep), "")
    view = memoryview((text + "\n").encode())
    while view:
        n = os.write(wfd, view)
        view = view[n:]


@functools.lru_cache(maxsize=4)
def json_escaped(text: str) -> str:
    """`text` as it appears inside a JSON string (asked for every message of a run: cached)."""
    return json.dumps(text)[1:-1]


RUN_DIR = "run"  # the run folder's name in the scratch folder: the same path for every program


def run_paths(scratch: str) -> tuple[str, str]:
    """(the run folder, the program's tree in it): the same paths for every program of a runner."""
    work = os.path.join(scratch, RUN_DIR)
    return work, os.path.join(work, "tree")


def copy_work_tree(src: str, dst: str, names: set[str] | None = None) -> set[str]:
    """Copy a cached tree (no write bits anywhere) to `dst`, writable by its owner, in one walk;
    the answer is every name in it up to its first dot (what an import could find there).

    The program writes its own files there, the suite is written in, and a test that chmods or
    deletes files of its tree must behave as in plain pytest; execute bits are kept (a task's
    test_command runs scripts). Links are copied as links (the cache refused any leading out).
    Folders get the owner's bits under the umask; files keep their modes plus the owner's write bit.
    """
    names = set() if names is None else names
    os.mkdir(dst, 0o777)
    with os.scandir(src) as it:
        entries = list(it)
    for entry in entries:
        names.add(entry.name.partition(".")[0])
        target = os.path.join(dst, entry.name)
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir(follow_symlinks=False):
            copy_work_tree(entry.path, target, names)
        else:
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            os.chmod(target, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode) | stat.S_IWUSR)
    return names


def run_child(
    req: RunRequest,
    wfd: int,
    scratch: str,
    tree_source: str,
    uid_private: bool,
    isolate: bool,
    prepared=None,
    plugins_off: list[str] = PLUGINS_OFF,
) -> None:
    """Run one program in this forked process; write its report to `wfd`; never returns.

    With `prepared` (a `_prism_prepared.Prepared` the runner set up for this request's suite),
    the program's session starts from it instead of from scratch.

    With `isolate` (the runner is the init of its own namespaces, `_prism_isolation`), the program
    gets an IPC namespace of its own and drops the capabilities it inherited.
    """
    start = time.perf_counter()
    preload.forked()
    os.setsid()
    # Files the program creates are its own: other runners of a shared sandbox run as other uids.
    os.umask(0o077)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    work, tree = run_paths(scratch)
    os.mkdir(work, 0o700)  # fails if the last program's folder stayed: never run on its leftovers
    names = copy_work_tree(tree_source, tree)
    suite_path, config = write_run_files(req, work, tree)
    phases = {"copy": round((time.perf_counter() - start) * 1000, 2)}
    if isolate:
        isolation.new_ipc_namespace()
    _program(
        req, wfd, work, tree, names, suite_path, config, uid_private, isolate, phases, start, prepared, plugins_off
    )


def write_run_files(req: RunRequest, work: str, tree: str) -> tuple[str, str]:
    """Write the suite and the configuration file into the run folder: (suite path, config path)."""
    suite_path = os.path.join(tree, req.suite_rel)
    os.makedirs(os.path.dirname(suite_path), exist_ok=True)
    with open(suite_path, "w", encoding="utf-8") as fh:
        fh.write(req.suite_text)
    return suite_path, _owned_config(req, work, tree)


def session_args(req: RunRequest, tree: str, config: str, plugins_off: list[str] = PLUGINS_OFF) -> list[str]:
    """pytest's arguments for the request's suite (and its selected tests) in `tree`."""
    args = [f"{req.suite_rel}::{t}" for t in req.tests] if req.tests else [req.suite_rel]
    return args + pytest_args(tree, config, plugins_off)


def config_file(req: RunRequest, work: str, tree: str) -> str:
    """Where the configuration file the program is judged with goes (`_owned_config`)."""
    return os.path.join(tree, req.config_rel) if req.config_rel else os.path.join(work, "pytest.ini")


def _owned_config(req: RunRequest, work: str, tree: str) -> str:
    """The configuration file the program is judged with: the initial state's (`config_rel`,
    `config_text`, written over the tree's copy so paths in it mean what they meant), else an
    empty one outside the tree. pytest reads it (`-c`) instead of any file of the tree, and
    before any code of the program runs.
    """
    path = config_file(req, work, tree)
    if not req.config_rel:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("[pytest]\n")
        return path
    if os.path.lexists(path) and (os.path.islink(path) or not os.path.isdir(path)):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(req.config_text or "")
    return path


def enter_program(work: str, tree: str, pythonpath: list[str], tree_names: set[str]) -> None:
    """Make this process the program's, for a suite run or a probe: stdin empty, stdout and stderr
    into the run's log, HOME and TMPDIR in the run's folder, the tree the working folder and first
    on sys.path, preceded by the task's import roots (a `src/` layout) so the program imports this
    tree's code, never a checkout the interpreter's venv has installed editable. `tree_names`
    (from `copy_work_tree`) decide whether the runner's preloaded modules could be shadowed."""
    preload.forget_if_shadowed(tree_names)
    out_fd = os.open(os.path.join(work, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null_fd, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    home = os.path.join(work, "home")
    os.makedirs(home)
    os.environ.update(HOME=home, TMPDIR=work, PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        os.environ.pop(name, None)  # the runner decides how pytest runs, not the environment
    tempfile.tempdir = None  # forget the runner's cached one: tmp_path and friends land in this run's folder
    os.chdir(tree)
    sys.path.insert(0, tree)
    for rel in reversed(pythonpath):
        sys.path.insert(0, os.path.join(tree, rel))


def _program(
    req: RunRequest,
    wfd: int,
    work: str,
    tree: str,
    tree_names: set[str],
    suite_path: str,
    config: str,
    uid_private: bool,
    isolate: bool,
    phases: dict[str, float],
    start: float,
    prepared,
    plugins_off: list[str],
) -> None:
    phases["namespaces"] = round((time.perf_counter() - start) * 1000 - phases["copy"], 2)
    keep = {0, 1, 2, wfd}
    if prepared is not None:
        prepared_session.release_capture(prepared)
        keep |= prepared_session.kept_fds(prepared)
    else:
        prepared_session.leave_out()
    enter_program(work, tree, req.pythonpath, tree_names)
    limits.set_limits(req.memory_mb, req.output_limit, req.pids_max, uid_private)
    sealing = time.perf_counter()
    isolation.seal(keep, caps=isolate, own_ipc=isolate)
    phases["seal"] = round((time.perf_counter() - sealing) * 1000, 2)
    phases["isolate"] = round((time.perf_counter() - start) * 1000, 2) - phases["copy"]
    if req.command:
        _run_command(req.command, wfd)
    changed = {os.path.join(tree, rel): lines for rel, lines in req.probed().items()}
    session_start = time.perf_counter()
    used = programcode.used
    collector, code = _session(
        req, wfd, tree, suite_path, changed, session_args(req, tree, config, plugins_off), prepared
    )
    collector.finish_probes()
    phases["session"] = round((time.perf_counter() - session_start) * 1000, 2)
    phases["program_code_used"] = float(programcode.used - used)  # modules run from the runner's compile
    report = ChildReport(
        exit_code=int(code) if isinstance(code, int) else -1,
        finished=collector.session_finished,
        interrupted=collector.interrupted,
        tests=list(collector.tests.values()),
        collect_errors=collector.collect_errors,
        collected=collector.collected,
        duration_ms=phases["session"],
        phases=phases,
        imported=programcode.imported(),
        stdlib=preload.imported(),
    )
    write_message(wfd, report, tree)
    os._exit(0)


def _session(
    req: RunRequest, wfd: int, tree: str, suite_path: str, changed: dict[str, list[int]], args: list[str], prepared
) -> tuple[Collector, int]:
    """Run the program's pytest session: (its collector, pytest's exit code, -1 when it raised)."""

    def collector_for_this_program(collector: Collector | None = None) -> Collector:
        if collector is None:
            collector = Collector(suite_path, changed, req.entry, tree)
        else:
            # a prepared session's: this program's state only
            collector.__init__(suite_path, changed, req.entry, tree)
        collector.progress = lambda event: write_message(wfd, event, tree)
        collector.watch({os.path.join(tree, rel): set(lines) for rel, lines in req.marks.items()})
        collector.start_probes()
        return collector

    if prepared is not None:
        collector = collector_for_this_program(prepared.collector)
    else:
        collector = collector_for_this_program()
        speedups.use_prebuilt_config()
    try:
        if prepared is not None:
            return collector, prepared_session.run(prepared)
        code = pytest.main(args, plugins=[collector])
        if code == 4 and not collector.tests and not collector.collect_errors:
            # The tree's own config asked for an option of a plugin we switched off.
            collector = collector_for_this_program()
            code = pytest.main([a for a in args if not a.startswith("no:") and a != "-p"], plugins=[collector])
        return collector, code
    except BaseException as exc:  # the candidate may raise anything, SystemExit included
        collector.collect_errors.append(
            CollectError(None, short("".join(traceback.format_exception_only(type(exc), exc))))
        )
        return collector, -1


def report_fatal(wfd: int) -> None:
    """Our own failure before pytest could report (e.g. the tree is unreadable): say why."""
    try:
        write_message(wfd, Fatal(short(traceback.format_exc())))
    except OSError:
        pass


def _run_command(command: str, wfd: int) -> None:
    """Judge by a task's own test command (non-pytest tasks): exit status 0 is a pass."""
    import subprocess

    start = time.perf_counter()
    code = subprocess.call(["/bin/sh", "-c", command], stdin=subprocess.DEVNULL)
    test = TestEntry(
        name="test command",
        outcome="pass" if code == 0 else "fail",
        message="" if code == 0 else f"`{command}` exited with status {code}",
    )
    write_message(
        wfd,
        ChildReport(
            exit_code=0,
            finished=True,
            tests=[test],
            collected=1,
            duration_ms=round((time.perf_counter() - start) * 1000, 2),
        ),
    )
    os._exit(0)


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


def warm_up(scratch: str) -> None:
    """Run one throwaway session here, before any fork, so every forked run inherits
    the modules pytest imports lazily and its filled caches (measured: about a third
    of a small run's time)."""
    import importlib

    suite_rel = "test_prism_warmup.py"
    work = tempfile.mkdtemp(prefix="warm-", dir=scratch)
    try:
        tree = os.path.join(work, "tree")
        os.makedirs(tree)
        saved_out, saved_err = os.dup(1), os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        cwd = os.getcwd()
        modules = set(sys.modules)
        try:
            suite_path = os.path.join(tree, suite_rel)
            with open(suite_path, "w") as fh:
                fh.write(_WARMUP_SUITE)
            os.chdir(tree)
            collector = Collector(suite_path, {})
            speedups.install()
            suitecode.install()
            programcode.install()
            with speedups.recording():
                pytest.main([suite_rel, *pytest_args(tree)], plugins=[collector])
            speedups.prebuild_config([a for name in PLUGINS_OFF for a in ("-p", f"no:{name}")])
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

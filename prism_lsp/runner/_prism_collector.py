"""pytest plugin for the runner: per-test outcomes, assertion lines, reached-change probes.

Loaded by `agent.py` inside the sandbox; stdlib + pytest only. The module name is
prefixed so it never shadows a module of the program under test.
"""

from __future__ import annotations

import os
import re
import sys
import time

import _prism_lines
import _prism_programcode
import pytest
from _prism_limits import limit_reached
from _prism_protocol import READ_MARK as READ
from _prism_protocol import Assertion, CollectError, TestDone, TestEntry, TestStart

_MAX_TEXT = 2000


def short(text: str, limit: int = _MAX_TEXT) -> str:
    """`text` cut to `limit` characters (messages travel in JSON lines)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Collector:
    """pytest plugin that records, per test, outcome, assertion lines and reached-change."""

    def __init__(
        self, suite_path: str, changed: dict[str, list[int]], entry: list[str] | None = None, root: str | None = None
    ):
        self.suite_path = os.path.realpath(suite_path)
        self.tests: dict[str, TestEntry] = {}
        self.collect_errors: list[CollectError] = []
        self.session_finished = False
        self.collected = 0
        self.changed = {os.path.realpath(k): set(v) for k, v in changed.items() if v}
        # Coverage (`_prism_lines`): entry points to measure (module -> function names), the
        # measured files (tree-relative), their changed statements, and per test what ran.
        self.entry: dict[str, list[str]] = {}
        for spec in entry or ():
            module, _, function = spec.partition(":")
            if module and function:
                self.entry.setdefault(module, []).append(function)
        self.root = os.path.realpath(root) if root else None
        # Probes report under a file's tree-relative path (the same whichever order modules load
        # in, so the runner can compile them before the child runs: `_prism_programcode`); each
        # file's place in `files` keeps `covered` in the order files were first measured.
        self.files: dict[str, int] = {}
        self.changed_statements: dict[str, set[int]] = {}
        self._covered: dict[str, set[tuple[str, int]]] = {}
        self._current = ""
        # Marks (`RunRequest.marks`, the initial program of a selected run): what ran of them while
        # no test did (collection, session fixtures) counts for every test; reading a marked file or
        # starting a process reports `READ` under each file it may have read.
        self._marked: dict[str, set[int]] = {}
        self._outside: set[tuple[str, int]] = set()
        self._watched: dict[str, str] = {}  # real path -> key
        self._watched_names: set[str] = set()
        # Called with a TestStart before and a TestDone after each test, so a run that
        # never finishes (timeout, os._exit, a crash) still tells which test it was in and
        # what the tests before it did.
        self.progress = None
        self.interrupted: str | None = None  # why the session stopped early (pytest.exit, Ctrl-C)
        # Code file name -> whether it is the suite: `realpath` stats every folder of the path, and
        # every frame of every traceback asks (measured: an eighth of a small suite's test time).
        self._suite_files: dict[str, bool] = {self.suite_path: True}

    # -- helpers ---------------------------------------------------------
    def _entry(self, item) -> TestEntry:
        name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.nodeid
        entry = self.tests.get(item.nodeid)
        if entry is None:
            def_line = None
            if item.location and item.location[1] is not None:
                def_line = item.location[1] + 1
            entry = TestEntry(name=name, def_line=def_line)
            self.tests[item.nodeid] = entry
        return entry

    def _in_suite(self, filename: str) -> bool:
        known = self._suite_files.get(filename)
        if known is None:
            known = self._suite_files[filename] = os.path.realpath(filename) == self.suite_path
        return known

    def _raised_elsewhere(self, excinfo) -> str | None:
        """`file:line` of the innermost frame when it is not in the suite, else None."""
        frames = _frames(excinfo.tb)
        if not frames or self._in_suite(frames[-1][0]):
            return None
        return f"{os.path.basename(frames[-1][0])}:{frames[-1][1]}"

    def _suite_line(self, excinfo) -> int | None:
        """The innermost suite line the exception passed through (the assert, or the call)."""
        lines = [line for filename, line in _frames(excinfo.tb) if self._in_suite(filename)]
        return lines[-1] if lines else None

    # -- which tests reach the changed lines, which lines they run ---------
    # The changed modules and the entry points' modules are compiled with a probe call in front of
    # every executable statement that holds a changed line or lies in an entry point's span (see
    # `_ProbeFinder`, `_prism_lines`), so measuring costs nothing outside those statements; a
    # tracer (settrace; `sys.monitoring` needs 3.12) would slow every call of every program.
    def probe(self, line: int, file: str = "") -> None:
        if self._current:
            covered = self._covered.get(self._current)
            if covered is None:
                covered = self._covered[self._current] = set()
            covered.add((file, line))
        elif line in self._marked.get(file, ()):
            self._outside.add((file, line))

    def watch(self, marks: dict[str, set[int]]) -> None:
        """Probe `marks` (absolute path -> lines) as described at `_marked`."""
        for path, lines in marks.items():
            key = self.file_key(path)
            self.files.setdefault(key, len(self.files))
            self._marked[key] = set(lines) | {READ}
            self._watched[os.path.realpath(path)] = key
            self._watched_names.add(os.path.basename(path))
        if marks and not _AUDITED:
            _AUDITED.append(self)
            sys.addaudithook(_audit)
        elif marks:
            _AUDITED[0] = self

    def read(self, event: str, args: tuple) -> None:
        if event == "open":
            path = args[0] if args else None
            if not isinstance(path, (str, bytes)):
                return
            path = os.fsdecode(path)
            if os.path.basename(path) not in self._watched_names:
                return
            key = self._watched.get(os.path.realpath(path))
            if key is None or _importing():
                return
            self.probe(READ, key)
        elif event in _PROCESS_EVENTS:
            for key in self._watched.values():
                self.probe(READ, key)

    def file_key(self, path: str) -> str:
        """What probes of file `path` report under: its path relative to the tree."""
        return os.path.relpath(path, self.root) if self.root else os.path.basename(path)

    def measured_file(self, path: str, changed_statements: set[int]) -> str:
        """Register file `path` with its changed statements' first lines: the key its probes report under."""
        rel = self.file_key(path)
        self.files.setdefault(rel, len(self.files))
        self.changed_statements.setdefault(rel, set()).update(changed_statements)
        return rel

    def start_probes(self) -> None:
        if self.changed or self.entry:
            import builtins

            builtins.__prism_probe__ = self.probe
            sys.meta_path.insert(0, _ProbeFinder(self))

    def _reached(self, nodeid: str) -> bool:
        return any(line in self.changed_statements.get(f, ()) for f, line in self._covered.get(nodeid, ()))

    def _covered_lines(self, nodeid: str) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        order = self.files
        for f, line in sorted(
            (pair for pair in self._covered.get(nodeid, ()) if pair[0] in order), key=lambda p: (order[p[0]], p[1])
        ):
            out.setdefault(f, []).append(line)
        return out

    def _measure(self, nodeid: str, entry: TestEntry) -> None:
        if self._outside:
            self._covered.setdefault(nodeid, set()).update(self._outside)
        if self.changed:
            entry.reached_change = self._reached(nodeid)
        if self.changed or self.entry:
            entry.covered = self._covered_lines(nodeid)

    def finish_probes(self) -> None:
        for nodeid, entry in self.tests.items():
            self._measure(nodeid, entry)

    # -- hooks -----------------------------------------------------------
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._current = item.nodeid
        entry = self._entry(item)
        if self.progress:
            self.progress(TestStart(entry.name, entry.def_line))
        start = time.perf_counter()
        outcome = yield
        self._current = ""
        entry.duration_ms = round((time.perf_counter() - start) * 1000, 2)
        if outcome.excinfo is not None:
            # pytest.exit() or KeyboardInterrupt left the test: it did not pass.
            self._stopped(item, entry, outcome.excinfo)
        if self.progress:
            self._measure(item.nodeid, entry)
            self.progress(TestDone(entry))

    def _stopped(self, item, entry: TestEntry, excinfo: tuple) -> None:
        exc = excinfo[1]
        what = "pytest.exit()" if type(exc).__name__ == "Exit" else type(exc).__name__
        frames = _frames(exc.__traceback__)
        origin = _outside_pytest(frames)
        where = f" from {_where(*origin)}" if origin else ""
        message = f"the session was stopped by {what}{where}; a pass needs every test to run"
        self.interrupted = message
        suite = [line for filename, line in frames if self._in_suite(filename)]
        _update(
            entry, outcome="error", reason="interrupted", message=message, line=suite[-1] if suite else entry.def_line
        )

    def pytest_keyboard_interrupt(self, excinfo):
        # Also outside any test (at collection): the session did not run to its end.
        if self.interrupted is None:
            self.interrupted = f"the session was stopped by {excinfo.typename}; a pass needs every test to run"

    def _skipped_by_program(self, excinfo) -> str | None:
        """`file, line N` when a skip/xfail was raised from the program's code, not the suite's."""
        origin = _outside_pytest(_frames(excinfo.tb))
        if origin is None or self._in_suite(origin[0]):
            return None
        return _where(*origin)

    def pytest_assertion_pass(self, item, lineno, orig, expl):
        try:
            if not self._in_suite(str(item.path)):
                return
        except Exception:
            return
        self._entry(item).assertions.append(Assertion(lineno, "pass", short(expl, 300)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        entry = self._entry(item)
        if call.excinfo is None:
            if report.failed and report.when == "call":
                # A strict xfail that passed: pytest fails it ([XPASS(strict)]), so do we.
                _update(
                    entry, outcome="fail", line=entry.def_line, message=short(str(report.longrepr or "[XPASS(strict)]"))
                )
            return
        if report.skipped:
            # The suite may skip or xfail; the program may not: a test it skips judged nothing.
            origin = self._skipped_by_program(call.excinfo)
            if origin is not None:
                what = "xfail" if hasattr(report, "wasxfail") else "skip"
                _update(
                    entry,
                    outcome="error",
                    reason="skipped",
                    line=self._suite_line(call.excinfo),
                    message=f"the program called pytest.{what}() ({origin}); a pass needs the test to run",
                )
            return
        if report.when == "call" and hasattr(report, "wasxfail"):
            return
        exc = call.excinfo
        line = self._suite_line(exc)
        reached = limit_reached(exc.value)
        if reached is not None:
            # Prism's limit, not the suite's judgement: never a failing test (`_prism_limits`).
            _update(entry, outcome="error", reason=reached[0], line=line, message=reached[1])
            return
        if report.when != "call":
            if entry.outcome != "fail":
                _update(
                    entry,
                    outcome="error",
                    reason="fixture",
                    line=line,
                    message=short(f"error in {report.when}: " + exc.exconly()),
                )
            return
        if isinstance(exc.value, AssertionError):
            full = str(exc.value) or exc.exconly()
            entry.assertions.append(Assertion(line, "fail", short(full, 300)))
            # The report's message is pytest's comparison line (`assert 3 == 2`); the
            # `where` lines stay in the assertion's explanation.
            lines = full.splitlines() or [full]
            compared = next((ln for ln in lines if ln.startswith("assert ")), None)
            message = lines[0] if compared is None or compared == lines[0] else f"{lines[0]} — {compared}"
            origin = self._raised_elsewhere(exc)
            if origin:
                # An assert in a helper or conftest failed under this suite line: say where, so
                # nobody reads its values as this line's comparison.
                message = f"{origin}: {message}"
        else:
            message = exc.exconly()
        _update(entry, outcome="fail", line=line, message=short(message))

    def pytest_exception_interact(self, node, call, report):
        # Runs before pytest_collectreport for a module that raised while being imported: the
        # exception is still here, so the suite line and the message come from it, not from
        # pytest's text (which, with --tb=line, lacks the suite frame and leads with paths).
        if type(report).__name__ != "CollectReport" or call.excinfo is None:
            return
        exc = call.excinfo.value
        # pytest wraps import and syntax errors of the test module in its CollectError.
        orig = exc.__cause__ if type(exc).__name__ == "CollectError" and exc.__cause__ else exc
        frames = _frames(orig.__traceback__)
        suite_lines = [line for filename, line in frames if self._in_suite(filename)]
        where = ""
        if isinstance(orig, SyntaxError):
            message = f"SyntaxError: {orig.msg}"
            if orig.filename and self._in_suite(orig.filename):
                suite_lines.append(orig.lineno)
            elif orig.filename:
                where = _where(orig.filename, orig.lineno)
        else:
            message = f"{type(orig).__name__}: {orig}".rstrip(": ")
            if frames and not self._in_suite(frames[-1][0]):
                where = _where(*frames[-1])
        report._prism_line = suite_lines[-1] if suite_lines else None
        report._prism_message = short(message + (f" ({where})" if where else ""))

    def pytest_collectreport(self, report):
        if report.failed:
            text = str(report.longrepr)
            line = getattr(report, "_prism_line", None)
            base = re.escape(os.path.basename(self.suite_path))
            for pattern in (base + r'", line (\d+)', base + r":(\d+)"):
                found = re.findall(pattern, text) if line is None else None
                if found:
                    line = int(found[-1])
                    break
            message = getattr(report, "_prism_message", None) or short(_collect_summary(text))
            self.collect_errors.append(CollectError(line, message))

    def pytest_collection_modifyitems(self, items):
        self.collected = len(items)

    def pytest_sessionfinish(self, session, exitstatus):
        self.session_finished = True


_PROCESS_EVENTS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty"}
_AUDITED: list[Collector] = []  # the collector the process's one audit hook reports to


def _audit(event: str, args: tuple) -> None:
    if event != "open" and event not in _PROCESS_EVENTS:
        return
    try:
        _AUDITED[0].read(event, args)
    except Exception:
        pass  # an audit hook that raises would fail the program's own call


def _importing() -> bool:
    """Whether the `open` being audited is the import system reading a module's source."""
    frame = sys._getframe(3)  # _importing <- read <- _audit <- the caller of open
    return frame is not None and frame.f_code.co_name == "get_data" and "importlib" in frame.f_code.co_filename


def _update(entry: TestEntry, **values) -> None:
    for name, value in values.items():
        setattr(entry, name, value)


class _ProbeFinder:
    """Import hook that compiles changed files and entry points' modules with probes (`_prism_lines`)."""

    def __init__(self, collector: Collector):
        self.collector = collector
        self.changed = {p: lines for p, lines in collector.changed.items() if p != collector.suite_path}

    def find_spec(self, fullname, path=None, target=None):
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            return None
        origin = os.path.realpath(spec.origin)
        lines = self.changed.get(origin)
        functions = self.collector.entry.get(fullname, [])
        if lines is None and not functions:
            return None
        if origin == self.collector.suite_path:
            return None
        spec.loader = _ProbeLoader(fullname, spec.origin, self.collector, origin, lines or set(), functions)
        return spec


def _probe_loader_class():
    import ast
    from importlib.machinery import SourceFileLoader

    class ProbeLoader(SourceFileLoader):
        def __init__(self, fullname, path, collector, origin, lines, functions):
            super().__init__(fullname, path)
            self.collector, self.origin, self.lines, self.functions = collector, origin, lines, functions

        def source_to_code(self, data, path, *, _optimize=-1):
            key = self.collector.file_key(self.origin)
            if isinstance(data, bytes):
                # Compiled by the runner from these very bytes with these very inputs, if at all.
                hit = _prism_programcode.lookup(path, data, (frozenset(self.lines), tuple(self.functions), key))
                if hit is not None:
                    self.collector.measured_file(self.origin, set(hit[1] or ()))
                    return hit[0]
            try:
                tree = ast.parse(data, filename=path)
            except SyntaxError:
                return super().source_to_code(data, path)
            changed, entry = _prism_lines.measured_lines(tree, self.lines, self.functions)
            self.collector.measured_file(self.origin, changed)
            insert_probes(tree, changed | entry, key)
            return compile(tree, path, "exec", dont_inherit=True)

        def get_code(self, fullname):
            # Never from a bytecode cache: the probes belong to this run's changed lines and entry points.
            return self.source_to_code(self.get_data(self.path), self.path)

    return ProbeLoader


def insert_probes(tree, lines: set[int], key: str) -> None:
    """A probe call `__prism_probe__(line, key)` in front of every executable statement starting on
    one of `lines` (`key`: the file's tree-relative path, `Collector.file_key`)."""
    import ast

    probed: dict[tuple[int, str], tuple[list, set[int]]] = {}
    for parent, name, position, stmt in list(_prism_lines.statements(tree)):
        if stmt.lineno in lines:
            probed.setdefault((id(parent), name), (getattr(parent, name), set()))[1].add(position)
    for stmts, positions in probed.values():
        out = []
        for position, stmt in enumerate(stmts):
            if position in positions:
                call = ast.Call(
                    ast.Name("__prism_probe__", ast.Load()), [ast.Constant(stmt.lineno), ast.Constant(key)], []
                )
                out.append(ast.copy_location(ast.Expr(call), stmt))
            out.append(stmt)
        stmts[:] = out
    ast.fix_missing_locations(tree)


def _ProbeLoader(fullname, path, collector, origin, lines, functions):
    global _PROBE_LOADER
    if _PROBE_LOADER is None:
        _PROBE_LOADER = _probe_loader_class()
    return _PROBE_LOADER(fullname, path, collector, origin, lines, functions)


_PROBE_LOADER = None


def _frames(tb) -> list[tuple[str, int]]:
    """(file, 1-based line) of each frame of traceback `tb`, outermost first.

    Read from the raw traceback: pytest's `TracebackEntry.path` is costly per entry.
    """
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return frames


def _outside_pytest(frames: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The innermost frame not in pytest's own code: who called skip/xfail/exit."""
    return next((frame for frame in reversed(frames) if not _is_pytest_frame(frame[0])), None)


def _where(filename: str, line: int) -> str:
    return f"{os.path.basename(filename)}, line {line}"


def _is_pytest_frame(filename: str) -> bool:
    parts = filename.replace(os.sep, "/").split("/")
    return any(p in ("_pytest", "pluggy", "pytest") for p in parts[-3:-1]) or parts[-1] == "_prism_collector.py"


def _collect_summary(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    if lines:
        return "\n".join(ln[1:].strip() for ln in lines[-6:])
    return "\n".join(text.strip().splitlines()[-6:])

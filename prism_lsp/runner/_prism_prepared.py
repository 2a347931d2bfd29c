"""A pytest session set up once per runner and suite version; each program's child only collects and runs.

Of a program's pytest session, parsing the arguments and the ini file, `pytest_configure` and
`pytest_sessionstart` (measured: 8 of a 22 ms session) do not depend on the program's files when
no conftest of the program lies on the suite's path: they read only the arguments, the
configuration file (the initial state's, the same for every program) and paths that are the same
for every program. The runner does that work once, in an empty copy of the run folder, before
forking; each child then enters pytest's own `wrap_session` with that session and runs collection,
the tests, `pytest_sessionfinish` and `pytest_unconfigure` exactly as a fresh `pytest.main` would.

Only runs whose set-up cannot differ between programs take this path (`usable`); anything else (a
conftest on the suite's path, a configuration that loads plugins, adds options, import paths or
warning filters, or names files to write, a pytest without the internals this needs, a set-up
that fails) runs the whole session in the child, as before. What a prepared session holds open is dealt with per child: its output capture
is stopped and a fresh one started after the seal (a capture file shared between programs would
be a channel between them), and its remaining descriptors (the log file handler's /dev/null) are
kept open across the seal. No code of a program ever runs in the runner: the tree is empty here.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

# Words of a configuration file whose set-up could depend on more than its text, or touch more
# than pytest's own objects while the runner sets it up: plugins (`-p`, `pytest_plugins`,
# `required_plugins`), options of any kind (`addopts`), import paths, warning categories (imported
# by module name), files opened for writing (`log_file`, `cache_dir`, `junit_*`).
_DEPENDS_ON_MORE = ("addopts", "plugins", "pythonpath", "-p", "filterwarnings", "log_file", "cache_dir", "junit")


@dataclass
class Prepared:
    """A session set up in the runner for one key (suite path, selected tests, configuration)."""

    key: tuple
    config: object
    session: object
    collector: object
    fds: set[int] = field(default_factory=set)  # descriptors the set-up opened (still open)


_current: Prepared | None = None


@functools.cache
def supported() -> bool:
    """Whether this pytest has the internals a prepared session relies on."""
    from _pytest import config as config_module
    from _pytest import main as main_module

    return (
        hasattr(main_module, "wrap_session")
        and hasattr(main_module.Session, "from_config")
        and hasattr(config_module, "_prepareconfig")
        and hasattr(config_module.Config, "_do_configure")
        and hasattr(config_module.Config, "_ensure_unconfigure")
    )


def usable(suite_rel: str, config_text: str | None, tree_source: str, command: str | None) -> bool:
    """Whether a program of this request may start from a prepared session: a pytest run, a
    configuration that only sets values, and no conftest.py on the suite's path in its tree."""
    if command or any(word in (config_text or "") for word in _DEPENDS_ON_MORE) or not supported():
        return False
    parts = [part for part in os.path.dirname(suite_rel).split(os.sep) if part]
    folders = itertools.accumulate(parts, os.path.join, initial=tree_source)
    return not any(os.path.lexists(os.path.join(folder, "conftest.py")) for folder in folders)


@contextmanager
def _quiet_stdio():
    """The runner's stdin/stdout/stderr are its protocol: pytest's set-up and tear-down (capture,
    terminal) see /dev/null instead, and whatever they buffered is dropped, never sent."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        yield
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        for fd, copy in zip((0, 1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def _open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def discard() -> None:
    """Tear the current prepared session down (pytest's own unconfigure: capture stopped, hooks
    and handlers removed), in the runner."""
    global _current
    prepared, _current = _current, None
    if prepared is None:
        return
    with _quiet_stdio():
        try:
            prepared.config._ensure_unconfigure()
        except BaseException:  # noqa: BLE001  (pytest's own tear-down; nothing of a program)
            pass


def prepare(key: tuple, args: list[str], collector, work: str, tree: str, write_files) -> Prepared | None:
    """The prepared session for `key`, set up now unless the current one has that key; None when
    setting it up failed (the child then runs the whole session itself).

    `write_files()` writes into the empty tree what pytest reads while setting up (the suite, the
    configuration file); the run folder is removed again afterwards, whatever happens.
    """
    global _current
    if _current is not None and _current.key == key:
        return _current
    discard()
    from _prism_cleanup import remove_tree
    from _pytest import config as config_module
    from _pytest import main as main_module

    cwd = os.getcwd()
    before = _open_fds()
    config = None
    try:
        os.makedirs(tree, mode=0o700)
        write_files()
        with _quiet_stdio():
            os.chdir(tree)
            try:
                config = config_module._prepareconfig(args, [collector])
                session = main_module.Session.from_config(config)
                session.exitstatus = 0
                config._do_configure()
                config.hook.pytest_sessionstart(session=session)
            finally:
                os.chdir(cwd)
    except BaseException:  # noqa: BLE001  (a set-up that fails here is done whole in the child)
        if config is not None:
            with _quiet_stdio():
                try:
                    config._ensure_unconfigure()
                except BaseException:  # noqa: BLE001
                    pass
        return None
    finally:
        remove_tree(work)
    _current = Prepared(key, config, session, collector, _open_fds() - before)
    return _current


def release_capture(prepared: Prepared) -> None:
    """In the child, before the seal: stop the prepared session's output capture (its files are
    the runner's, shared with every program forked from it)."""
    capman = prepared.config.pluginmanager.get_plugin("capturemanager")
    if capman is not None:
        capman.stop_global_capturing()


def kept_fds(prepared: Prepared) -> set[int]:
    """The prepared session's descriptors still open in this child that the seal must keep: only
    ones open on /dev/null (pytest's log file handler writes there), nothing else of the runner's."""
    null = os.stat(os.devnull)
    kept = set()
    for fd in prepared.fds & _open_fds():
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if (st.st_rdev, st.st_dev, st.st_ino) == (null.st_rdev, null.st_dev, null.st_ino):
            kept.add(fd)
    return kept


def leave_out() -> None:
    """In a child that runs without the prepared session (a whole session of its own, a probe):
    take the prepared session's import hook off `sys.meta_path`, as if it had never been set up."""
    if _current is None:
        return
    config = _current.config
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "config", None) is not config]


class _AlreadyStarted:
    """Stands in for the `pytest_sessionstart` hook caller in a child: the session started in the
    runner. Everything but the call (what pluggy checks of a hook) is the real caller's."""

    def __init__(self, caller):
        self._caller = caller

    def __call__(self, **kwargs):
        return []

    def __getattr__(self, name: str):
        return getattr(self._caller, name)


def run(prepared: Prepared) -> int:
    """In the child, after the seal: pytest's `wrap_session` from the prepared session on (capture
    restarted first, as `pytest.main` starts it); the exit code `pytest.main` would return."""
    import pytest
    from _pytest import main as main_module
    from _pytest.config import ExitCode, UsageError

    config, session = prepared.config, prepared.session
    capman = config.pluginmanager.get_plugin("capturemanager")
    if capman is not None:
        capman.start_global_capturing()
        capman.suspend_global_capture()
    os.environ["PYTEST_VERSION"] = pytest.__version__
    # wrap_session makes the session, configures and starts it: all three are done already.
    main_module.Session.from_config = classmethod(lambda cls, _config: session)
    config._do_configure = lambda: None
    config.hook.pytest_sessionstart = _AlreadyStarted(config.hook.pytest_sessionstart)
    try:
        try:
            code = config.hook.pytest_cmdline_main(config=config)
            try:
                return int(ExitCode(code))
            except ValueError:
                return code
        finally:
            config._ensure_unconfigure()
    except UsageError as exc:
        sys.stderr.write(f"ERROR: {exc}\n")
        return int(ExitCode.USAGE_ERROR)

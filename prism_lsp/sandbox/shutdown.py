"""Turn SIGTERM and SIGHUP into a normal interpreter exit, so `atexit` hooks run.

Docker containers outlive the process that started them; the Docker backend
removes its container in an `atexit` hook. Python runs those hooks on a normal
exit (including `SystemExit` and Ctrl-C) but not when SIGTERM or SIGHUP kills
the process with the default action, which is how editors, process managers and
closed terminals stop `prism-lsp` and `prism run`. `install_exit_on_signals()`
makes those signals raise `SystemExit(128 + signum)` in the main thread instead.

A handler installed before keeps working: it is called first (it may exit on its
own). A signal that was ignored (e.g. SIGHUP under `nohup`) stays ignored.

Raising `SystemExit` unwinds the main thread, but the interpreter joins
non-daemon threads before it runs `atexit` hooks, and a thread blocked for good
(an LSP reader waiting on stdin) would hold the exit, and the hooks, forever.
So the first signal also starts a daemon watchdog: if the process is still
alive after `grace_s`, it runs the remaining `atexit` hooks itself and ends the
process with the same status.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
GRACE_S = 30.0  # room for the atexit hooks: removing a container takes ~1 s, a slow engine up to 20 s

_installed: dict[int, object] = {}  # signum -> our handler, so a second install does not chain onto itself
_exiting = threading.Event()


def install_exit_on_signals(grace_s: float = GRACE_S) -> bool:
    """Make SIGTERM/SIGHUP exit the interpreter normally (running `atexit` hooks).

    Call it from the main thread (signal handlers can only be set there); anywhere
    else it does nothing and returns False. Safe to call more than once. Returns
    True when the handlers are in place.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in SIGNALS:
        try:
            previous = signal.getsignal(signum)
        except (ValueError, OSError):
            continue
        if previous is signal.SIG_IGN or (signum in _installed and previous is _installed[signum]):
            continue  # ignored on purpose (nohup), or already ours
        handler = _make_handler(previous, grace_s)
        try:
            signal.signal(signum, handler)
        except (ValueError, OSError):  # e.g. an embedding interpreter that forbids it
            continue
        _installed[signum] = handler
    return True


def _make_handler(previous, grace_s: float):
    def handler(signum, frame):
        if _exiting.is_set():
            return  # already on the way out: a second signal must not abort the atexit hooks
        if callable(previous) and previous not in (signal.SIG_DFL, signal.SIG_IGN):
            previous(signum, frame)  # may exit by itself; then so be it
        _exiting.set()
        status = 128 + signum
        threading.Thread(target=_watchdog, args=(grace_s, status), daemon=True, name="prism-exit-watchdog").start()
        raise SystemExit(status)

    return handler


def _watchdog(grace_s: float, status: int) -> None:
    """Finish the exit when a blocked non-daemon thread holds it past `grace_s`."""
    time.sleep(grace_s)
    try:
        # The main thread never reached the hooks (blocked joining a thread) or is stuck in one;
        # running them here may repeat one, which the container removal hooks tolerate.
        atexit._run_exitfuncs()
    finally:
        os._exit(status)

"""When a command started: what a time budget (`prism panel build --budget-s`) counts from.

A command run as its own process (`prism ...`) started with the process, so the interpreter's start
and the imports count too; one called in a process that was already running (a test, a tool
calling `prism_main`) started at the call.
"""

from __future__ import annotations

import os
import time


def process_started() -> float:
    """When this process started, as a `time.monotonic()` value; read from /proc (Linux), else now."""
    try:
        with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as f:
            # The fields after the command name (which may hold spaces): the 20th is the start time.
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic()
    return time.monotonic() - max(0.0, age)


def command_started(own_process: bool) -> float:
    """When the command started: with its process when it is the process's own, else now."""
    return process_started() if own_process else time.monotonic()

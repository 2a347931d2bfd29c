"""The time limit of each program's run, from how long the reference's run takes.

One fixed limit per program is too short for a repository's large test module (more-itertools:
576 tests, 9-17 s under plain pytest, against the default 10 s) and a guess for everything else.
The configured limit (`--timeout`, the manifest's `timeout_s`, the editor's
`prism.timeoutSeconds`) is the floor; once the reference's run is measured, every program may
take `SLOWER` times as long plus `MARGIN_S`, capped at `CAP_TIMES` the floor. A panel run starts
each program at the limit its pool measured last for that suite (the floor at first); a program
that timed out below the limit the reference's run now allows runs again at that limit, and a
reference that timed out runs again at the cap first, to be measured. A hang stays a hang: it
costs one run at the floor when the reference is fast, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from prism_lsp.model.manifest import MAX_TIMEOUT_S
from prism_lsp.model.outcome import ProgramResult

SLOWER = 3.0
MARGIN_S = 1.0
CAP_TIMES = 10.0
_REMEMBERED = 256  # suites whose reference time a pool keeps


def cap(floor: float) -> float:
    """The longest limit a program gets when the configured one is `floor`."""
    return max(floor, min(float(MAX_TIMEOUT_S), CAP_TIMES * floor))


def derived(floor: float, reference_s: float) -> float:
    """The limit per program when the reference's run took `reference_s` seconds."""
    return round(min(cap(floor), max(floor, SLOWER * reference_s + MARGIN_S)), 1)


def first_limit(measured: dict, key: tuple, floor: float) -> float:
    """The limit a run starts its programs at: from the reference's last measured time, else the floor."""
    seconds = measured.get(key)
    return floor if seconds is None else derived(floor, seconds)


def timed_out(result: ProgramResult) -> bool:
    return result.outcome == "error" and result.reason == "timeout"


def settle(
    ready: dict[str, ProgramResult],
    limits: dict[str, float],
    reference: str | None,
    floor: float,
    measured: dict,
    key: tuple,
    rerun: Callable[[str, float], Future],
    convert: Callable[[Any], ProgramResult],
) -> None:
    """Run again, in place in `ready`, what timed out below the limit the reference's run allows.

    `limits[name]` is the limit program `name` ran with; `rerun(name, limit)` submits it again
    and `convert` turns the runner's answer into a `ProgramResult`.
    """
    if reference is None or reference not in ready:
        return
    if timed_out(ready[reference]) and limits[reference] < cap(floor):
        limits[reference] = cap(floor)
        ready[reference] = convert(rerun(reference, limits[reference]).result())
    if timed_out(ready[reference]) or ready[reference].outcome == "error" and not ready[reference].tests:
        return  # the reference could not be measured: the limits stand
    seconds = ready[reference].duration_ms / 1000
    measured[key] = seconds
    while len(measured) > _REMEMBERED:
        measured.pop(next(iter(measured)))
    limit = derived(floor, seconds)
    again = {
        name: rerun(name, limit)
        for name, result in ready.items()
        if name != reference and name in limits and limits[name] < limit and timed_out(result)
    }
    for name, future in again.items():
        limits[name] = limit
        ready[name] = convert(future.result())

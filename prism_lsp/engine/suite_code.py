"""The suite's code compiled once on the host for every runner (`runner/_prism_suitecode`).

In the editor the compile starts as soon as a buffer of a task's suite changes (`prefetch`), in a
process of its own, so it runs beside the buffer's analysis instead of after it (both hold the GIL
in this process: 0.3 s each on a 7,000-line module). A run that asks for the code (`compiled`)
waits for that compile, or compiles here when none was started (`prism run`, `prism score`).
The compile process keeps the last version's statements parsed and rewritten
(`engine.suite_statements`): an edit parses only what changed. A compile that crashes or outlasts `WAIT_S` gives no code: each runner then compiles the text
itself, as it does under another interpreter. Parsing and compiling run none of the suite's code.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import functools
import multiprocessing
import threading
from collections import OrderedDict

from prism_lsp.engine.suite_statements import StatementCompiler
from prism_lsp.runner import _prism_suitecode as suitecode

WAIT_S = 30.0
_KEEP = 4  # suite versions whose compile is kept (an editor makes one per edit)

Shipped = tuple[str | None, str | None]  # (the code's tag, the code) or (None, None)

_lock = threading.Lock()
_started: OrderedDict[tuple[str, str], concurrent.futures.Future] = OrderedDict()
_pool: concurrent.futures.ProcessPoolExecutor | None = None


def prefetch(rel: str, text: str) -> None:
    """Start compiling suite `text` (at `rel` in the tree) in the compile process, once per version."""
    global _pool
    with _lock:
        if (rel, text) in _started:
            return
        if _pool is None:
            # spawn, not fork: this process runs threads (the server's), and a forked copy of them could deadlock.
            _pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            atexit.register(_pool.shutdown, wait=False, cancel_futures=True)
        try:
            _started[(rel, text)] = _pool.submit(_compile, rel, text)
        except (RuntimeError, concurrent.futures.BrokenExecutor):
            _pool = None  # broken (a compile crashed it) or shut down: the next prefetch starts another
            return
        while len(_started) > _KEEP:
            _started.popitem(last=False)[1].cancel()


def compiled(rel: str, text: str) -> Shipped:
    """(tag, code) of suite `text` at `rel`: the prefetched compile's, else compiled here now."""
    with _lock:
        started = _started.get((rel, text))
    if started is None:
        return _here(rel, text)
    try:
        return started.result(timeout=WAIT_S)
    except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError, concurrent.futures.BrokenExecutor):
        return (None, None)


@functools.lru_cache(maxsize=_KEEP)
def _here(rel: str, text: str) -> Shipped:
    return _compile(rel, text)


_statements = StatementCompiler()  # one per process: the compile process's, or this one's


def _compile(rel: str, text: str) -> Shipped:
    code = suitecode.ship(_statements.code(text, suitecode.shipped_path(rel)))
    return (None, None) if code is None else (suitecode.code_tag(), code)

"""Standard-library modules the programs import, imported once in the runner instead of in every child.

pytest does not import `unittest.mock`, but a suite that does pays for it in every program's
child: on more-itertools' `tests/test_more.py` that import (asyncio, ssl, pickle, ...) was 80 of a
180 ms one-test session. A child reports the standard-library modules it imported; after answering,
the runner imports them once, so every child forked later finds them loaded, as it finds pytest.

What keeps outcomes those of plain pytest:
- Only modules of the interpreter's own library (not site-packages: numpy starts a thread at
  import) whose top-level name is in `PRELOADABLE`: importing them starts no thread, prints
  nothing and keeps no state of the process it runs in (environment, working folder, pid);
  never a `__main__` module or a test package. An import that warns, changes the warning filters,
  starts a thread or fails is undone and never tried again: in the child it would have warned
  under the program's filters.
- Modules are preloaded only after the warm-up (`mark_baseline`); what plain pytest imports itself
  is the baseline and never touched.
- A tree holding a file or folder named like a preloaded module's top-level name (anywhere: a
  conftest may put any folder on `sys.path`) could shadow it, as plain Python would import the
  tree's: that child drops every preloaded module before any of its code runs (`forget_if_shadowed`)
  and imports them afresh.
- A child's report is the program's word: it only chooses which allowed modules the runner imports
  (at most `MAX_WANTED`, within `BUDGET_S` a round), never what code a program runs.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import time
import warnings
from collections import OrderedDict
from importlib import import_module

# Top-level names of standard-library modules a test suite or its program commonly imports whose
# import is side-effect free in the sense above (checked on CPython 3.11-3.13).
PRELOADABLE = frozenset(
    """
    abc argparse array ast asyncio base64 binascii bisect bz2 calendar cmath codecs collections
    colorsys concurrent configparser contextlib contextvars copy copyreg csv ctypes dataclasses
    datetime decimal difflib dis doctest email enum errno filecmp fileinput fnmatch fractions
    functools getopt glob graphlib gzip hashlib heapq hmac html http inspect io ipaddress itertools
    json keyword linecache logging lzma math mmap multiprocessing numbers operator optparse pdb
    pickle pickletools pkgutil plistlib pprint queue quopri random re reprlib sched secrets
    selectors shelve shlex shutil signal socket socketserver sqlite3 ssl stat statistics string
    struct subprocess tarfile tempfile textwrap threading timeit tokenize traceback types typing
    unicodedata unittest urllib uuid weakref xml zipfile zlib _asyncio _bz2 _contextvars _csv
    _ctypes _decimal _hashlib _json _lzma _multiprocessing _pickle _queue _socket _sqlite3 _ssl
    _struct _uuid _zoneinfo
    """.split()
)
MAX_WANTED = 256
BUDGET_S = 0.5  # of imports in one round between programs

_baseline: frozenset[str] = frozenset()
_preloaded: set[str] = set()  # what our imports added to sys.modules after the baseline
_wanted: OrderedDict[str, None] = OrderedDict()
_refused: set[str] = set()
_at_fork: frozenset[str] = frozenset()  # in a child: sys.modules when it was forked
_roots = tuple(
    os.path.realpath(p) + os.sep for p in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)


def mark_baseline() -> None:
    """In the runner, after the warm-up: what is loaded now is pytest's own and never dropped."""
    global _baseline
    _baseline = frozenset(sys.modules)


def allowed(name: str) -> bool:
    """Whether `name` is a module name this runner may preload (syntax and policy only)."""
    parts = name.split(".")
    return (
        len(name) < 200
        and all(p.isidentifier() for p in parts)
        and parts[0] in PRELOADABLE
        and not any(p == "__main__" or p.startswith(("test", "idle")) for p in parts[1:])
    )


def preload(names: list[str]) -> int:
    """In the runner: import `names` (each `allowed` and not yet refused) so later children inherit
    them; an import that warns, touches the warning filters, starts a thread or fails is undone.
    The answer is how many were imported now."""
    done = 0
    deadline = time.monotonic() + BUDGET_S
    for name in names:
        if name in sys.modules or name in _refused or not allowed(name):
            continue
        if time.monotonic() > deadline:
            break
        before = set(sys.modules)
        filters = list(warnings.filters)
        threads = threading.active_count()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                inner = list(warnings.filters)
                import_module(name)
                clean = not caught and warnings.filters == inner
        except BaseException:  # noqa: BLE001 (whatever an import raises, the child may import it itself)
            clean = False
        added = set(sys.modules) - before
        clean = clean and warnings.filters == filters and threading.active_count() == threads
        if not clean or not all(_in_stdlib(sys.modules.get(m)) for m in added):
            _refused.add(name)
            _drop(added)
            continue
        _preloaded.update(added - _baseline)
        done += 1
    return done


def learn(names: object) -> None:
    """In the runner: remember which modules a child said it imported (a hint, bounded)."""
    if not isinstance(names, list):
        return
    for name in names[:MAX_WANTED]:
        if isinstance(name, str) and allowed(name) and name not in _refused:
            _wanted[name] = None
            _wanted.move_to_end(name)
    while len(_wanted) > MAX_WANTED:
        _wanted.popitem(last=False)


def preload_wanted() -> int:
    """In the runner, between programs: import what children reported and is not loaded yet."""
    return preload(list(_wanted)) if _wanted else 0


def forked() -> None:
    """In a child, first thing: remember what it inherited."""
    global _at_fork
    _at_fork = frozenset(sys.modules)


def forget_if_shadowed(tree_names: set[str]) -> bool:
    """In a child, before any program code: when the tree holds a file or folder named like the
    top-level name of a preloaded module, drop every preloaded module (and the attributes their
    parent packages got) so that the program imports each as plain Python would. True if dropped."""
    if not _preloaded or not {m.partition(".")[0] for m in _preloaded} & tree_names:
        return False
    _drop(_preloaded)
    return True


def imported() -> list[str]:
    """In a child: the allowed standard-library modules it imported itself, for its report."""
    return sorted(n for n in set(sys.modules) - _at_fork if allowed(n) and _in_stdlib(sys.modules.get(n)))[:MAX_WANTED]


def _in_stdlib(module: object) -> bool:
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if origin in ("built-in", "frozen"):
        return True
    if not isinstance(origin, str):
        # a namespace package (no origin): its folders decide
        locations = getattr(spec, "submodule_search_locations", None) or ()
        return bool(locations) and all(_stdlib_path(str(p)) for p in locations)
    return _stdlib_path(origin)


def _stdlib_path(path: str) -> bool:
    real = os.path.realpath(path)
    return real.startswith(_roots) and "site-packages" not in real and "dist-packages" not in real


def _drop(names: set[str]) -> None:
    """Take `names` out of sys.modules and their parent packages' attributes (longest names first)."""
    for name in sorted(names, key=len, reverse=True):
        module = sys.modules.pop(name, None)
        parent, _, child = name.rpartition(".")
        holder = sys.modules.get(parent) if parent else None
        if holder is not None and module is not None and getattr(holder, child, None) is module:
            try:
                delattr(holder, child)
            except AttributeError:
                pass
    _preloaded.difference_update(names)

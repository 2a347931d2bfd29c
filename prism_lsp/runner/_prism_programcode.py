"""The program's own modules, compiled once per runner instead of once per program.

Every program of a panel run is copied to one fixed folder and its child imports the program's
modules from source (no bytecode is written, each tree is fresh), on every edit again: on
more-itertools (`more.py`, 5,560 lines, compiled with probes) most of a one-test session. The same
programs come back edit after edit, so the runner compiles each file version once, before forking,
and every child forked afterwards inherits the code objects (as `_prism_suitecode` does for the
suite): one test on its 7-program panel, sessions 269–407 → 118–138 ms.

What keeps it safe: only the runner (the parent) puts code here, and it only parses and compiles
what it read from a program's tree in the cache, never runs it; a child reads what it inherited
by fork and nothing it writes comes back. A child uses an entry only when the file it is about to
import holds exactly the compiled bytes at exactly the compiled path, with the same probe inputs:
candidate B's `more.py` is never run with candidate A's code, and a program that rewrites its own
module at import is compiled afresh, as plain Python would.

The files compiled for a request: its changed files and its entry points' modules, compiled with
probes (`_prism_collector`) exactly as the child would for the same lines and functions, and the
files earlier children of this runner imported from their trees without probes. Those come from a
child's report, which the program can write: they only choose which of the next tree's files are
compiled (at most `MAX_HINTS`, at most `HINT_BUDGET` bytes of them compiled per request, so a
program cannot make the runner spend the next program's time), never what code is used.
"""

from __future__ import annotations

import ast
import os
import stat
import warnings
from collections import OrderedDict

import _prism_lines

MAX_FILE = 2 << 20  # bytes of one source file: a larger one is left to the child
MAX_TOTAL = 32 << 20  # source bytes of all entries
MAX_ENTRIES = 512
MAX_HINTS = 1024  # files earlier children imported, most recent kept (networkx imports 285)
HINT_BUDGET = 2 << 20  # source bytes of hinted files compiled for one request (about 0.4 s)

# Probe inputs: None for a plain module, else (changed lines, entry functions, tree-relative path).
ProbeKey = tuple[frozenset[int], tuple[str, ...], str] | None
# (final path, exact source, probe key) -> (code, changed statements' first lines or None)
_cache: OrderedDict[tuple[str, bytes, ProbeKey], tuple[object, frozenset[int] | None]] = OrderedDict()
_total = 0
_hints: OrderedDict[str, None] = OrderedDict()  # tree-relative files children imported without probes
_run_tree = ""  # the fixed run tree of this runner (set before the first fork)
_imported: list[str] = []  # in a child: what it imported from the run tree without probes
used = 0  # entries a child took its code from (this process's count: reported in the child's phases)


def lookup(path: str, source: bytes, probe: ProbeKey = None) -> tuple[object, frozenset[int] | None] | None:
    """In a child: the prepared (code, changed statements) for exactly these bytes at `path`, or None."""
    global used
    hit = _cache.get((path, source, probe))
    if hit is not None:
        used += 1
    return hit


def install() -> None:
    """Make plain source imports answer from the prepared code (in the runner, before any fork).

    `source_to_code` is what `SourceLoader.get_code` calls once it has read the source bytes (after
    deciding no bytecode cache applies), so spec, `__file__`, `__cached__`, packages and namespace
    packages are the import system's own; only the compile of identical bytes is skipped."""
    from importlib.machinery import SourceFileLoader

    original = SourceFileLoader.source_to_code
    if getattr(original, "prepared", False):
        return

    def source_to_code(self, data, path, *, _optimize=-1):
        if _optimize == -1 and isinstance(data, bytes) and isinstance(path, str):
            if _run_tree and path.startswith(_run_tree + os.sep) and len(_imported) < MAX_HINTS:
                _imported.append(path[len(_run_tree) + 1 :])
            hit = lookup(path, data)
            if hit is not None:
                return hit[0]
        return original(self, data, path, _optimize=_optimize)

    source_to_code.prepared = True  # type: ignore[attr-defined]
    SourceFileLoader.source_to_code = source_to_code  # type: ignore[method-assign]


def imported() -> list[str]:
    """In a child: the tree's files it imported without probes, for its report."""
    return list(_imported)


def learn(files: object) -> None:
    """In the runner: remember which tree files a child said it imported (a hint, bounded)."""
    if not isinstance(files, list):
        return
    for rel in files[:MAX_HINTS]:
        if isinstance(rel, str) and len(rel) < 1024 and rel.endswith(".py") and _inside(rel):
            _hints[rel] = None
            _hints.move_to_end(rel)
    while len(_hints) > MAX_HINTS:
        _hints.popitem(last=False)


def probe_code(
    source: bytes, path: str, lines: set[int], functions: list[str], rel: str
) -> tuple[object, frozenset[int]]:
    """(code with probes, changed statements' first lines) as `_ProbeLoader` compiles `source` at
    `path`; raises SyntaxError (and what `compile` raises) for a file that does not compile."""
    import _prism_collector

    tree = ast.parse(source, filename=path)
    changed, entry = _prism_lines.measured_lines(tree, lines, functions)
    _prism_collector.insert_probes(tree, changed | entry, rel)
    return compile(tree, path, "exec", dont_inherit=True), frozenset(changed)


def prepare(
    tree: str,
    tree_source: str,
    changed: dict[str, list[int]],
    entry: list[str],
    pythonpath: list[str],
    suite_rel: str,
) -> int:
    """In the runner, before forking: compile the request's changed files, its entry points' modules
    and the files earlier children imported, read from `tree_source`, as the child would import them
    from the run tree `tree`. Only what is not cached yet is compiled; the answer is how many were."""
    global _run_tree
    _run_tree = tree
    functions: dict[str, list[str]] = {}
    for spec in entry:
        module, _, function = spec.partition(":")
        if module and function:
            functions.setdefault(module, []).append(function)
    roots = [os.path.join(tree, rel) for rel in pythonpath] + [tree]
    probed: dict[str, tuple[set[int], list[str]]] = {}  # final path -> (changed lines, functions)
    for rel, changed_lines in changed.items():
        if changed_lines and rel != suite_rel and rel.endswith(".py") and _inside(rel):
            path = os.path.join(tree, rel)
            probed[path] = (set(changed_lines), functions.get(_module_name(path, roots) or "", []))
    for module, names in functions.items():
        found = _module_path(module, roots, tree, tree_source)
        if found is not None and found not in probed:
            probed[found] = (set(), names)
    real_tree = os.path.realpath(tree)
    compiled = 0
    for path, (lines, names) in probed.items():
        source = _read(os.path.join(tree_source, os.path.relpath(path, tree)))
        if source is not None:
            rel = os.path.relpath(os.path.realpath(path), real_tree)
            compiled += _compile((path, source, (frozenset(lines), tuple(names), rel)))
    budget = HINT_BUDGET
    for rel in list(_hints):
        path = os.path.join(tree, rel)
        if path in probed or rel == suite_rel:
            continue  # imported with probes (or rewritten by pytest): a plain compile goes unused
        source = _read(os.path.join(tree_source, rel))
        if source is None:
            continue
        key: tuple[str, bytes, ProbeKey] = (path, source, None)
        if key not in _cache:
            if len(source) > budget:
                continue
            budget -= len(source)  # spent whether it compiles or not
        compiled += _compile(key)
    return compiled


def _compile(key: tuple[str, bytes, ProbeKey]) -> int:
    """1 when `key` was compiled now, 0 when it was cached or does not compile. The key says all
    the compile reads: the path, the source, and for a probed module its probes' inputs."""
    if key in _cache:
        _cache.move_to_end(key)
        return 0
    path, source, probe = key
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if probe is None:
                value: tuple[object, frozenset[int] | None] = (compile(source, path, "exec", dont_inherit=True), None)
            else:
                value = probe_code(source, path, set(probe[0]), list(probe[1]), probe[2])
    except (SyntaxError, ValueError, RecursionError, MemoryError, TypeError):
        return 0  # the child reports it as plain Python would
    if caught:
        # A compile that warns (an invalid escape sequence) warns in the child, under the program's
        # warning filters: `filterwarnings = error` makes it an import error there. Left to the child.
        return 0
    _put(key, value)
    return 1


def _put(key: tuple[str, bytes, ProbeKey], value: tuple[object, frozenset[int] | None]) -> None:
    global _total
    _cache[key] = value
    _total += len(key[1])
    while len(_cache) > MAX_ENTRIES or _total > MAX_TOTAL:
        old, _ = _cache.popitem(last=False)
        _total -= len(old[1])


def _inside(rel: str) -> bool:
    """Whether tree-relative `rel` names a file inside the tree (requests come from the host)."""
    return not os.path.isabs(rel) and ".." not in rel.split("/")


def _module_name(path: str, roots: list[str]) -> str | None:
    """The dotted name `path` is imported under from the first root holding it."""
    for root in roots:
        if path.startswith(root + os.sep):
            parts = path[len(root) + 1 : -3].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join(parts) if parts else None
    return None


def _module_path(module: str, roots: list[str], tree: str, tree_source: str) -> str | None:
    """Where `module` is found under the first root holding it (as the path finder would look)."""
    tail = module.replace(".", os.sep)
    if not tail or not all(part.isidentifier() for part in module.split(".")):
        return None
    for root in roots:
        for candidate in (os.path.join(root, tail, "__init__.py"), os.path.join(root, tail + ".py")):
            if os.path.isfile(os.path.join(tree_source, os.path.relpath(candidate, tree))):
                return candidate
    return None


def _read(path: str) -> bytes | None:
    """The bytes of regular file `path` up to `MAX_FILE`, else None (never blocks on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE + 1)
        return data if len(data) <= MAX_FILE else None
    except OSError:
        return None
    finally:
        os.close(fd)

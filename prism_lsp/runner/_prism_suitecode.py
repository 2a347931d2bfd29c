"""The suite's assertion-rewritten code, compiled once per runner instead of once per program.

Every program of a panel run imports the same suite text from the same path (each program's
tree is copied to one fixed folder), and pytest parses, rewrites and compiles it again in every
forked child: measured at about a tenth of a small program's session. The runner compiles it
once when the request arrives, before forking (parsing and compiling run none of the suite's
code), and every child forked afterwards inherits the code object.

A child uses the prepared code only when the file it is about to import holds exactly the bytes
that were compiled, at exactly that path: a program that rewrote the suite file (from a conftest,
say) is compiled afresh, as plain pytest would. The rewrite depends on one setting,
`enable_assertion_pass_hook`, which every run forces on (`_prism_child.pytest_args`).

The host compiles it too, once per suite version, and sends the code with each request
(`compiled_for_runners`): a runner whose Python and pytest are the host's (`code_tag`) takes it
instead of compiling, so an edit's new suite is compiled once, not once per runner (three runners
compiling a 7,000-line module at once took a second of every one-test edit on two cores). The code
comes from the trusted host over the request pipe, which no program can write to; a runner with
another interpreter (a task image's) compiles the text itself, as before.
"""

from __future__ import annotations

import ast
import base64
import marshal
import sys
import types
import warnings
from collections import OrderedDict

_KEEP = 4  # suite versions kept per runner: an editor sends a new one per edit
_prepared: OrderedDict[tuple[str, bytes], object] = OrderedDict()  # (path, source) -> _rewrite_test's answer


class _PassHookOn:
    """The one setting the rewriter reads from pytest's Config (`-o enable_assertion_pass_hook=true`)."""

    @staticmethod
    def getini(name: str):
        if name != "enable_assertion_pass_hook":
            raise KeyError(name)
        return True


def install() -> None:
    """Make pytest's rewriter answer from the prepared code (no-op on a pytest without `_rewrite_test`)."""
    from _pytest.assertion import rewrite

    original = getattr(rewrite, "_rewrite_test", None)
    if original is None or getattr(original, "prepared", False):
        return

    def _rewrite_test(fn, config):
        hit = _prepared.get((str(fn), _read(fn)))
        return hit if hit is not None else original(fn, config)

    _rewrite_test.prepared = True
    rewrite._rewrite_test = _rewrite_test


def _read(fn) -> bytes | None:
    try:
        return fn.read_bytes()
    except OSError:
        return None


def code_tag() -> str:
    """What code compiled here may be reused under: this Python's exact version and bytecode magic,
    and this pytest's version (the rewrite is pytest's)."""
    import importlib.util

    import _pytest

    return f"{sys.version}|{importlib.util.MAGIC_NUMBER.hex()}|{getattr(_pytest, '__version__', '?')}"


MAX_SHIPPED = 16 << 20  # marshalled bytes a suite's code may take on the wire; a larger one is compiled here


def compiled_for_runners(rel: str, text: str) -> str | None:
    """On the host: the suite `text` rewritten and compiled as a runner would, marshalled and
    base64-encoded, or None (it does not compile, or its code is past `MAX_SHIPPED`). Its file
    name is a placeholder the runner replaces with the suite's path there."""
    return ship(rewritten_code(text.encode("utf-8"), shipped_path(rel)))


def shipped_path(rel: str) -> str:
    """The placeholder file name of the host's code for a suite at `rel` (the runner puts its own)."""
    return "/prism-suite/" + rel


def ship(code: types.CodeType | None) -> str | None:
    """`code` marshalled and base64-encoded for a request, or None (no code, or past `MAX_SHIPPED`)."""
    if code is None:
        return None
    data = marshal.dumps(code)
    return base64.b64encode(data).decode("ascii") if len(data) <= MAX_SHIPPED else None


def prepare(path: str, text: str, tag: str | None = None, shipped: str | None = None) -> None:
    """In the runner, before forking: the suite `text`'s code as pytest would compile it at `path`:
    the host's (`shipped`, compiled under `tag`) when this runner's `code_tag` is the same, else
    compiled here. A suite that does not compile is left to the child (it reports the error)."""
    import importlib.util

    source = text.encode("utf-8")
    key = (path, source)
    if key in _prepared:
        _prepared.move_to_end(key)
        return
    code = _received(shipped, path) if shipped and tag == code_tag() else None
    if code is None:
        code = rewritten_code(source, path)
    if code is None:
        return
    # pytest >= 8 answers (source hash, code); earlier ones (stat, code): only the code is used
    # then (no pyc is written: PYTHONDONTWRITEBYTECODE).
    _prepared[key] = (importlib.util.source_hash(source), code)
    while len(_prepared) > _KEEP:
        _prepared.popitem(last=False)


def rewrite(tree: ast.Module, source: bytes, path: str) -> bool:
    """Rewrite the asserts of `tree` (parsed from `source`) as pytest does for a test module at
    `path`; False on a pytest without its rewriter's entry point (nothing is changed then)."""
    from _pytest.assertion import rewrite as pytest_rewrite

    if not hasattr(pytest_rewrite, "rewrite_asserts"):
        return False
    pytest_rewrite.rewrite_asserts(tree, source, path, _PassHookOn())
    return True


def rewritten_code(source: bytes, path: str) -> types.CodeType | None:
    """The code of test module `source` at `path` with pytest's assertion rewrite, or None (it does
    not compile, it warns, or this pytest has no rewriter to call)."""
    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            tree = ast.parse(source, filename=path)
            if not rewrite(tree, source, path):
                return None
            code = compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, KeyError, TypeError):
        return None
    # A compile that warns (`"\d"`, "assertion is always true") is left to the child: its session's
    # `filterwarnings` decides what the warning does (an error, under `error`), as in plain pytest.
    return None if warned else code


def _received(shipped: str, path: str) -> types.CodeType | None:
    try:
        code = marshal.loads(base64.b64decode(shipped, validate=True))
    except (ValueError, EOFError, TypeError):
        return None
    try:
        return _relocated(code, path) if isinstance(code, types.CodeType) else None
    except RecursionError:
        return None


def _relocated(code: types.CodeType, path: str) -> types.CodeType:
    """`code` and every code object in it, compiled as if at `path` (tracebacks name the real file)."""
    consts = tuple(_relocated(c, path) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=path, co_consts=consts)

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
"""

from __future__ import annotations

import ast
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


def prepare(path: str, text: str) -> None:
    """In the runner, before forking: rewrite and compile the suite `text` as pytest would at
    `path`. A suite that does not compile is left to the child (it reports the error)."""
    import importlib.util

    from _pytest.assertion import rewrite

    source = text.encode("utf-8")
    key = (path, source)
    if key in _prepared:
        _prepared.move_to_end(key)
        return
    if not hasattr(rewrite, "rewrite_asserts"):
        return
    try:
        tree = ast.parse(source, filename=path)
        rewrite.rewrite_asserts(tree, source, path, _PassHookOn())
        code = compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, KeyError, TypeError):
        return
    # pytest >= 8 answers (source hash, code); earlier ones (stat, code): only the code is used
    # then (no pyc is written: PYTHONDONTWRITEBYTECODE).
    _prepared[key] = (importlib.util.source_hash(source), code)
    while len(_prepared) > _KEEP:
        _prepared.popitem(last=False)

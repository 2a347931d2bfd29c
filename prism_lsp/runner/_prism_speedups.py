"""Work pytest repeats in every session that the runner pays once, before any fork.

Each program runs a whole pytest session in a forked child; what that session computes about
pytest's *own* objects (its plugin modules, our collector) is the same every time. Results
computed during the warm-up session (`recording()`), in the runner, are inherited by every
forked child. Only pure answers about objects that exist before the fork are kept, so a
program's own objects are always examined afresh: verdicts cannot change.

- `FixtureManager._find_wrapped_fixture_def(obj)` (pytest >= 9: looks for fixtures hidden
  behind decorators, for a warning): called for every name of every plugin module in every
  session, measured at 12-20 % of a small session.
- `FixtureManager.parsefactories(holder=module)`: which names of a plugin module are fixtures;
  every name of every built-in plugin module is looked at in every session. A module seen
  while recording is afterwards given as a stand-in holding only its fixtures (the same
  objects, in the same order), so the same fixtures are registered the same way.
- `PytestPluginManager.parse_hookimpl_opts(plugin, name)` and `parse_hookspec_opts(module, name)`:
  what each attribute of each plugin (and hook specification) module declares, read with
  `inspect` for all ~40 built-in plugins at every registration.
"""

from __future__ import annotations

from contextlib import contextmanager

_cache: dict[int, tuple[object, object]] = {}  # id(obj) -> (obj kept alive, its answer)
_by_name: dict[tuple[str, int, str], tuple[object, object]] = {}  # (what, id(holder), name) -> (holder, answer)
_fixtures_only: dict[int, tuple[object, object]] = {}  # id(module) -> (module, stand-in with its fixtures only)
_recording = False


def install() -> None:
    """Wrap the costly pure lookups with the cache (no-op on a pytest without them)."""
    from _pytest import fixtures
    from _pytest.config import PytestPluginManager

    for what in ("parse_hookimpl_opts", "parse_hookspec_opts"):
        _memo_by_name(PytestPluginManager, what)
    manager = getattr(fixtures, "FixtureManager", None)
    _fixture_stand_ins(manager, fixtures)
    original = getattr(manager, "_find_wrapped_fixture_def", None)
    if original is None:
        return

    def find_wrapped_fixture_def(self, obj):
        hit = _cache.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        answer = original(self, obj)
        if _recording:
            _cache[id(obj)] = (obj, answer)
        return answer

    manager._find_wrapped_fixture_def = find_wrapped_fixture_def


def _fixture_stand_ins(manager, fixtures) -> None:
    import types

    original = getattr(manager, "parsefactories", None)
    definition = getattr(fixtures, "FixtureFunctionDefinition", None)
    notset = getattr(fixtures, "NOTSET", None)
    if original is None or definition is None or notset is None:
        return
    from _pytest.compat import safe_getattr

    def parsefactories(self, node_or_obj=notset, nodeid=notset, *, holder=notset, node=notset):
        if holder is notset or not isinstance(holder, types.ModuleType):
            return original(self, node_or_obj, nodeid, holder=holder, node=node)
        hit = _fixtures_only.get(id(holder))
        if hit is not None and hit[0] is holder:
            return original(self, holder=hit[1], node=node)
        if _recording:
            stand_in = types.ModuleType(holder.__name__)
            for name in dir(holder):
                raw = holder.__dict__.get(name)
                if type(safe_getattr(holder, name, None)) is definition and type(raw) is not classmethod:
                    setattr(stand_in, name, getattr(holder, name))
            _fixtures_only[id(holder)] = (holder, stand_in)
        return original(self, holder=holder, node=node)

    manager.parsefactories = parsefactories


def _memo_by_name(cls, what: str) -> None:
    """Answer `cls.what(holder, name)` from the cache for module holders seen while recording
    (a module's attributes are pytest's own code; an instance's could differ per session)."""
    import copy
    import types

    original = getattr(cls, what, None)
    if original is None:
        return

    def memo(self, holder, name):
        key = (what, id(holder), name)
        hit = _by_name.get(key)
        if hit is not None and hit[0] is holder:
            return copy.copy(hit[1])  # pluggy normalises the options dict in place
        answer = original(self, holder, name)
        if _recording and isinstance(holder, types.ModuleType):
            _by_name[key] = (holder, copy.copy(answer))
        return answer

    setattr(cls, what, memo)


@contextmanager
def recording():
    """Remember answers while the body runs (the runner's warm-up session, before any fork)."""
    global _recording
    _recording = True
    try:
        yield
    finally:
        _recording = False

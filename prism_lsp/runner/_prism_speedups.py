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
  `inspect` for all ~40 built-in plugins at every registration. Also for plugin *objects* of
  pytest's own classes (and ours: the collector), by class: a method's hook options are its
  function's, the same for every instance.
- `parsefactories(holder=obj)` for such objects (the Config, the session, the terminal reporter,
  ...): pytest looks fixtures up on the object's class, so a class that held none while recording
  holds none in any session, and the scan is skipped.
"""

from __future__ import annotations

import pathlib
from contextlib import contextmanager

_cache: dict[int, tuple[object, object]] = {}  # id(obj) -> (obj kept alive, its answer)
_by_name: dict[tuple, tuple[object, object]] = {}  # (what, id(module) or class, name) -> (module or class, answer)
_fixtures_only: dict[int, tuple[object, object]] = {}  # id(module) -> (module, stand-in with its fixtures only)
_fixture_free: set[type] = set()  # classes of pytest's (and our) plugin objects that hold no fixture
_recording = False
_config_kwargs: dict | None = None  # get_config's keyword arguments as pytest.main passed them in the warm-up
_prebuilt: tuple | None = None  # (its `-p` values, keyword arguments, Config): built in the runner
_use_prebuilt = False  # set in a forked child only; the runner's own sessions never touch it


def install() -> None:
    """Wrap the costly pure lookups with the cache (no-op on a pytest without them)."""
    from _pytest import fixtures
    from _pytest.config import PytestPluginManager

    for what in ("parse_hookimpl_opts", "parse_hookspec_opts"):
        _memo_by_name(PytestPluginManager, what)
    _config_reuse()
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
        if holder is not notset and not isinstance(holder, (types.ModuleType, type)):
            return _object_factories(original, self, holder, node)
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


def _ours(cls: type) -> bool:
    """A class of pytest's, pluggy's or the runner's own code (never a program's or a third party's)."""
    module = getattr(cls, "__module__", None) or ""
    return module.split(".")[0] in ("_pytest", "pytest", "pluggy") or module.startswith("_prism_")


def _object_factories(original, manager, holder, node) -> None:
    """`parsefactories` for a plugin object: skipped for a fixture-free class of our own, learnt
    while recording (nothing registered, no wrapped-fixture warning)."""
    cls = type(holder)
    if cls in _fixture_free:
        return None
    if not (_recording and _ours(cls)):
        return original(manager, holder=holder, node=node)
    import warnings

    table = getattr(manager, "_arg2node2fixturedefs", None)
    if not isinstance(table, dict):  # another pytest keeps its fixtures elsewhere: learn nothing
        return original(manager, holder=holder, node=node)

    def count() -> int:
        return sum(len(defs) for by_node in table.values() for defs in by_node.values())

    before = count()
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        answer = original(manager, holder=holder, node=node)
    if count() == before and not warned:
        _fixture_free.add(cls)
    for message in warned:
        warnings.warn_explicit(message.message, message.category, message.filename, message.lineno)
    return answer


def _memo_by_name(cls, what: str) -> None:
    """Answer `cls.what(holder, name)` from the cache for module holders, and objects of our own
    classes, seen while recording (a module's attributes are pytest's own code, a class's methods
    too; an attribute set on an object could differ per session: never cached)."""
    import copy
    import types

    original = getattr(cls, what, None)
    if original is None:
        return

    def memo(self, holder, name):
        if isinstance(holder, types.ModuleType):
            owner, key = holder, (what, id(holder), name)
        elif not isinstance(holder, type) and _ours(type(holder)) and name not in getattr(holder, "__dict__", ()):
            owner = type(holder)
            key = (what, owner, name)
        else:
            return original(self, holder, name)
        hit = _by_name.get(key)
        if hit is not None and hit[0] is owner:
            return copy.copy(hit[1])  # pluggy normalises the options dict in place
        answer = original(self, holder, name)
        if _recording:
            _by_name[key] = (owner, copy.copy(answer))
        return answer

    setattr(cls, what, memo)


def _plugin_args(args) -> tuple[str, ...] | None:
    """The values of `-p` options (what `get_config` reads), None when written in another form."""
    args = [str(a) for a in args or ()]
    if any(a.startswith("-p") and a != "-p" for a in args):
        return None
    return tuple(args[i + 1] for i, a in enumerate(args[:-1]) if a == "-p")


def _config_reuse() -> None:
    from _pytest import config as config_module

    original = getattr(config_module, "get_config", None)
    if original is None or not hasattr(config_module.Config, "InvocationParams"):
        return

    def get_config(args=None, plugins=None, **kwargs):
        global _prebuilt, _use_prebuilt, _config_kwargs
        if _recording:
            _config_kwargs = dict(kwargs)
        if _use_prebuilt:
            ready, _prebuilt, _use_prebuilt = _prebuilt, None, False  # a Config serves one session
            if ready is not None and ready[0] == _plugin_args(args) and ready[1] == kwargs:
                config = ready[2]
                config.invocation_params = config.InvocationParams(
                    args=args or (), plugins=plugins, dir=pathlib.Path.cwd()
                )
                return config
        return original(args, plugins, **kwargs)

    config_module.get_config = get_config
    config_module.get_config.original = original


def prebuild_config(args: list[str]) -> None:
    """In the runner, after the warm-up: the Config the next forked children start from.

    `args` are the `-p no:NAME` options every program's session passes (they decide which
    default plugins are registered); a session with other ones builds its own Config.
    """
    global _prebuilt
    from _pytest import config as config_module

    original = getattr(config_module.get_config, "original", None)
    if original is None or _config_kwargs is None or _plugin_args(args) is None:
        return
    _prebuilt = (_plugin_args(args), _config_kwargs, original(list(args), None, **_config_kwargs))


def use_prebuilt_config() -> None:
    """In a forked child: its next pytest session starts from the runner's prebuilt Config."""
    global _use_prebuilt
    _use_prebuilt = True


@contextmanager
def recording():
    """Remember answers while the body runs (the runner's warm-up session, before any fork)."""
    global _recording
    _recording = True
    try:
        yield
    finally:
        _recording = False

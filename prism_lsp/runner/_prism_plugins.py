"""Which of pytest's built-in plugins a program's run may switch off: only those nothing of it reaches.

Switching a built-in plugin off saves part of every session's start (`_prism_child.PLUGINS_OFF`),
but takes its fixtures, hooks, options and ini keys away: a conftest whose autouse fixture asks
for `doctest_namespace` (networkx's root conftest does) then errors on every test where plain
pytest passes. So a plugin stays on for a run when the text the run's set-up is made of names
something of it: the suite, the configuration file, every conftest.py on the suite's path, and
the tree's modules those bring names in from (`from X import ...`, `pytest_plugins`), followed
transitively. When that set is too large to read (a conftest importing from a whole library),
every plugin stays on: a slower run, never a different verdict.

Runs in the runner, before the fork, on the cached tree (no code of the program runs here).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict

# Built-in plugins a judged run may do without, each with the words whose presence in the run's
# set-up keeps it on: its fixtures, its options and ini keys, its name (`getplugin("junitxml")`).
# Measured (CPU of one small session): unraisableexception ~35 ms (it collects garbage at each
# test's end), cacheprovider ~13, stepwise ~10, faulthandler ~8, doctest ~5.
_WORDS = {
    "doctest": ("doctest",),
    "junitxml": ("record_property", "record_xml_attribute", "record_testsuite_property", "junit", "LogXML", "xml_key"),
    "cacheprovider": (
        "cacheprovider",
        "cache_dir",
        "cacheshow",
        "cache-show",
        "cache-clear",
        "--lf",
        "--ff",
        "--nf",
        "last-failed",
        "last_failed",
        "failed-first",
        "failed_first",
        "new-first",
        "new_first",
        "--sw",
        "stepwise",
    ),
    "stepwise": ("stepwise", "--sw"),
    "pastebin": ("pastebin",),
    "faulthandler": ("faulthandler",),
    # These two only turn an unraisable or a thread's exception into a warning: it matters when
    # warnings become errors, or when the suite names the warning.
    "unraisableexception": ("unraisable", "filterwarnings", "simplefilter", "-W"),
    "threadexception": ("UnhandledThreadException", "thread_exception", "filterwarnings", "simplefilter", "-W"),
    "setuponly": ("setup-only", "setup_only", "setup-show", "setup_show", "setuponly"),
    "setupplan": ("setup-plan", "setup_plan", "setupplan"),
}
# The `cache` fixture and `config.cache`: a word, not part of `lru_cache` (checked only where
# "cache" occurs: plain substrings are what keeps reading a large conftest cheap).
_CACHE = re.compile(r"\bcache\b")


def _names(name: str, text: str) -> bool:
    """Whether `text` names something of the built-in plugin `name`."""
    if any(word in text for word in _WORDS[name]):
        return True
    return name == "cacheprovider" and "cache" in text and _CACHE.search(text) is not None


# A fixture asked for by a name computed at run time: which plugin it belongs to is unknown.
_UNSURE = re.compile(r"getfixturevalue\(\s*[^\s'\")]")
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import\b", re.M)
_PLUGINS_LIST = re.compile(r"pytest_plugins\s*=\s*(\[[^\]]*\]|\([^)]*\)|[^\n]*)")
_STRING = re.compile(r"['\"]([\w.]+)['\"]")

# Bounds of what is read per run: beyond them, every plugin stays on.
MAX_FILES = 64
MAX_BYTES = 4 << 20

_memo: OrderedDict[tuple, frozenset[str] | None] = OrderedDict()


def switched_off(
    candidates: list[str], suite_rel: str, suite_text: str, config_text: str | None, tree: str, pythonpath: list[str]
) -> list[str]:
    """The plugins of `candidates` (names of built-in plugins) this run may switch off.

    What the tree's files name is read once per (tree, suite path, configuration): `tree` is the
    program's cached tree, content-addressed, so its path names its content. The suite's text,
    new at every edit, is the only text read on every run (unless it names plugin modules)."""
    if "pytest_plugins" in suite_text:
        found = _set_up_texts(suite_rel, suite_text, tree, pythonpath)
        named = _reached(None if found is None else found + [config_text or ""])
    else:
        key = (suite_rel, config_text, tree, tuple(pythonpath))
        if key in _memo:
            _memo.move_to_end(key)
            named = _memo[key]
        else:
            found = _set_up_texts(suite_rel, None, tree, pythonpath)
            named = _memo[key] = _reached(None if found is None else found + [config_text or ""])
            if len(_memo) > 256:
                _memo.popitem(last=False)
    in_suite = _reached([suite_text])
    if named is None or in_suite is None:
        return []
    kept = set(named | in_suite) & set(candidates)
    if "stepwise" in kept:
        kept.add("cacheprovider")  # stepwise keeps its state in the cache
    return [name for name in candidates if name not in kept]


def _reached(texts: list[str] | None) -> frozenset[str] | None:
    """The built-in plugins `texts` name; None (unsure: all of them) past the bounds or for a
    fixture asked for by a computed name."""
    if texts is None or any("getfixturevalue" in text and _UNSURE.search(text) for text in texts):
        return None
    return frozenset(name for name in _WORDS if any(_names(name, text) for text in texts))


def _set_up_texts(suite_rel: str, suite_text: str | None, tree: str, pythonpath: list[str]) -> list[str] | None:
    """The texts of the tree a run's pytest set-up is made of (conftests on the suite's path, the
    modules they bring names in from, the plugin modules `suite_text` names); None when there
    are more than the bounds allow."""
    texts: list[str] = []
    suite_path = os.path.join(tree, suite_rel)
    pending: list[tuple[str, str | None]] = [(suite_path, suite_text)] if suite_text is not None else []
    folder = tree
    for part in [p for p in os.path.dirname(suite_rel).split("/") if p] + [None]:
        path = os.path.join(folder, "conftest.py")
        if os.path.isfile(path):
            pending.append((path, None))
        if part is None:
            break
        folder = os.path.join(folder, part)
    roots = [os.path.join(tree, rel) for rel in pythonpath] + [tree]
    seen: set[str] = set()
    size = 0
    while pending:
        path, text = pending.pop()
        path = os.path.normpath(path)
        if path in seen:
            continue
        seen.add(path)
        if text is None:
            if len(seen) > MAX_FILES:
                return None
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(MAX_BYTES + 1 - size)
            except OSError:
                continue
            size += len(text)
            if size > MAX_BYTES:
                return None
            texts.append(text)
        for module in _named_modules(text, path, tree, imports=path != os.path.normpath(suite_path)):
            found = _module_file(module, roots)
            if found is not None:
                pending.append((found, None))
    return texts


def _named_modules(text: str, path: str, tree: str, imports: bool) -> list[str]:
    """Dotted names of the modules `text` (the file at `path`) names as plugins, and with
    `imports` those it brings names in from."""
    names = []
    for dots, module in _FROM_IMPORT.findall(text) if imports and "from" in text else ():
        if dots:
            package = os.path.dirname(path)
            for _ in range(len(dots) - 1):
                package = os.path.dirname(package)
            rel = os.path.relpath(package, tree)
            if rel.startswith(".."):
                continue
            prefix = "" if rel == "." else rel.replace(os.sep, ".")
            module = ".".join(p for p in (prefix, module) if p)
        if module:
            names.append(module)
    for listed in _PLUGINS_LIST.findall(text) if "pytest_plugins" in text else ():
        names += _STRING.findall(listed)
    return names


def _module_file(module: str, roots: list[str]) -> str | None:
    """The tree's file for `module` (a module or a package's `__init__.py`), None when not the tree's."""
    rel = module.replace(".", os.sep)
    for root in roots:
        for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None

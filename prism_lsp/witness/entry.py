"""Entry points: the functions of the program that suites call (`module:function`).

Declared by `entry = [...]` in `prism.toml`; when absent, inferred from the suite:
functions imported (`from m import f`, `from pkg import m` or `import m`, then `m.f(...)`)
from a module of the initial program (under its import roots: a `src/` layout) and called by
the suite.

An entry may have a call form (`CallForm`): keyword arguments, and for a method the
constructor's arguments (`Class(a, k=1).method(x)`). Its inputs stay flat argument tuples, so
the same mutations apply; `Entry.literal` turns one into what the probe sends.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.witness.suite_names import suite_names


@dataclass(frozen=True)
class CallForm:
    """How a call spreads its flat argument tuple: constructor positionals and keywords (for a method,
    `init` is not None), then the call's positionals and keywords."""

    init: tuple[int, tuple[str, ...]] | None = None
    positional: int = 0
    keywords: tuple[str, ...] = ()

    @property
    def arity(self) -> int:
        return (self.init[0] + len(self.init[1]) if self.init else 0) + self.positional + len(self.keywords)

    def __str__(self) -> str:
        init = "" if self.init is None else f"init={self.init[0]}{''.join(',' + k for k in self.init[1])};"
        return f"({init}{self.positional}{''.join(',' + k for k in self.keywords)})"

    def split(self, args: tuple) -> tuple[tuple, dict, tuple, dict]:
        """(constructor args, constructor keywords, args, keywords) of a flat tuple."""
        n, kw = self.init if self.init else (0, ())
        init, args = args[:n], args[n:]
        init_kw, args = dict(zip(kw, args[: len(kw)])), args[len(kw) :]
        pos, kwargs = args[: self.positional], dict(zip(self.keywords, args[self.positional :]))
        return init, init_kw, pos, kwargs


@dataclass(frozen=True)
class Entry:
    """One entry point, and the names the suite calls it by (`f`, or `m.f`; for a method, the class)."""

    module: str
    function: str
    local_names: tuple[str, ...] = ()
    form: CallForm | None = None

    @property
    def spec(self) -> str:
        """The entry's identity (with its call form, when it has one)."""
        return self.target + ("" if self.form is None else str(self.form))

    @property
    def target(self) -> str:
        """What the probe loads: `module:function` or `module:Class.method`."""
        return f"{self.module}:{self.function}"

    def accepts(self, args: tuple) -> bool:
        return self.form is None or len(args) == self.form.arity

    def literal(self, args: tuple) -> str:
        """The probe's call literal: the argument tuple, or for a call form the dict the runner spreads."""
        if self.form is None:
            return repr(args)
        init, init_kw, pos, kwargs = self.form.split(args)
        call = {"args": pos, "kwargs": kwargs}
        if self.form.init is not None:
            call.update(init=init, init_kwargs=init_kw)
        return repr(call)

    def call_text(self, name: str, args: tuple, show) -> str:
        """The call as a suite writes it (`show` renders one value)."""
        if self.form is None:
            return f"{name}({', '.join(show(a) for a in args)})"
        init, init_kw, pos, kwargs = self.form.split(args)

        def spread(p: tuple, k: dict) -> str:
            return ", ".join([show(a) for a in p] + [f"{n}={show(v)}" for n, v in k.items()])

        if self.form.init is None:
            return f"{name}({spread(pos, kwargs)})"
        method = self.function.rsplit(".", 1)[-1]
        return f"{name}({spread(init, init_kw)}).{method}({spread(pos, kwargs)})"


def parse_suite(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _is_program_module(initial: Path, module: str, roots: tuple[str, ...] = ()) -> bool:
    # `src` too: a project whose pytest configuration puts it on the path itself declares no root.
    for root in dict.fromkeys((".", "src", *roots)):
        base = (initial / root).joinpath(*module.split("."))
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return True
    return False


def entry_points(
    suite_text: str, initial: Path, declared: tuple[str, ...] = (), roots: tuple[str, ...] = ()
) -> list[Entry]:
    """The entry points to probe, each with the names the suite calls it by (`roots`: the program's
    import roots besides its top folder, e.g. `src`)."""
    calls = suite_names(suite_text)
    imported: dict[str, tuple[str, str]] = {}  # local dotted name -> (module, function)
    for kind, module, name, asname in calls.imports if calls is not None else ():
        if kind == "import":
            imported[f"{asname or module}.*"] = (module, "*")
        elif name == "*":
            continue
        elif _is_program_module(initial, f"{module}.{name}", roots):
            # `from pkg import mod`: then `mod.f(...)`
            imported[f"{asname or name}.*"] = (f"{module}.{name}", "*")
        else:
            imported[asname or name] = (module, name)
    called = set(calls.called) if calls is not None else set()
    aliases = calls.aliases if calls is not None else {}
    called |= {aliases[n] for n in called if n in aliases}  # `singularize = strutils.singularize`

    def local_names(module: str, function: str) -> tuple[str, ...]:
        names = [n for n, (m, f) in imported.items() if (m, f) == (module, function)]
        names += [f"{n[:-2]}.{function}" for n, (m, f) in imported.items() if f == "*" and m == module]
        names += [a for a, dotted in aliases.items() if dotted in names]
        return tuple(dict.fromkeys(n for n in names if n in called))

    if declared:
        out = []
        for spec in declared:
            module, _, function = spec.partition(":")
            out.append(Entry(module, function, local_names(module, function)))
        return out
    found: dict[str, Entry] = {}
    for name, (module, function) in imported.items():
        if not _is_program_module(initial, module, roots):
            continue
        if function == "*":
            for dotted in sorted(called):
                prefix = name[:-1]  # "m."
                if dotted.startswith(prefix) and "." not in dotted[len(prefix) :]:
                    fn = dotted[len(prefix) :]
                    found.setdefault(f"{module}:{fn}", Entry(module, fn, local_names(module, fn)))
        elif name in called:
            found.setdefault(f"{module}:{function}", Entry(module, function, local_names(module, function)))
    return list(found.values())

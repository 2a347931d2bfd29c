"""Entry points: the functions of the program that suites call (`module:function`).

Declared by `entry = [...]` in `prism.toml`; when absent, inferred from the suite:
functions imported (`from m import f`, or `import m` then `m.f(...)`) from a
module of the initial program and called by the suite.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    """One entry point, and the names the suite calls it by (`f`, or `m.f`)."""

    module: str
    function: str
    local_names: tuple[str, ...] = ()

    @property
    def spec(self) -> str:
        return f"{self.module}:{self.function}"


def parse_suite(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _is_program_module(initial: Path, module: str) -> bool:
    base = initial.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _called_names(tree: ast.Module) -> set[str]:
    """Every `f` of `f(...)` and `m.f` of `m.f(...)` in the suite, and every function passed to a
    call (`check(f)`, HumanEval's way of calling the entry point)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for part in [node.func, *node.args]:
                dotted = dotted_name(part) if part is node.func or isinstance(part, (ast.Name, ast.Attribute)) else None
                if dotted:
                    names.add(dotted)
    return names


def dotted_name(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def entry_points(suite_text: str, initial: Path, declared: tuple[str, ...] = ()) -> list[Entry]:
    """The entry points to probe, each with the names the suite calls it by."""
    tree = parse_suite(suite_text)
    imported: dict[str, tuple[str, str]] = {}  # local dotted name -> (module, function)
    if tree is not None:
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name != "*":
                        imported[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    imported[f"{alias.asname or alias.name}.*"] = (alias.name, "*")
    called = _called_names(tree) if tree is not None else set()

    def local_names(module: str, function: str) -> tuple[str, ...]:
        names = [n for n, (m, f) in imported.items() if (m, f) == (module, function)]
        names += [f"{n[:-2]}.{function}" for n, (m, f) in imported.items() if f == "*" and m == module]
        return tuple(n for n in names if n in called)

    if declared:
        out = []
        for spec in declared:
            module, _, function = spec.partition(":")
            out.append(Entry(module, function, local_names(module, function)))
        return out
    found: dict[str, Entry] = {}
    for name, (module, function) in imported.items():
        if not _is_program_module(initial, module):
            continue
        if function == "*":
            for dotted in sorted(called):
                prefix = name[:-1]  # "m."
                if dotted.startswith(prefix) and "." not in dotted[len(prefix):]:
                    fn = dotted[len(prefix):]
                    found.setdefault(f"{module}:{fn}", Entry(module, fn, local_names(module, fn)))
        elif name in called:
            found.setdefault(f"{module}:{function}", Entry(module, function, local_names(module, function)))
    return list(found.values())

"""The calls a suite makes to an entry point, with their literal arguments.

Arguments are read from the suite's source: literals, and names bound to
literals at module level (`PLAYERS = [("ann", 3)]`). A call whose arguments are
not literals (computed, keyword, starred) is left out: its inputs are unknown.
Each call keeps where it is (line, enclosing test and statement) so suggestions
can relax or extend it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from prism_lsp.witness.entry import Entry, dotted_name, parse_suite


@dataclass(frozen=True)
class SuiteCall:
    """One call of an entry point in the suite."""

    entry: str  # module:function
    local_name: str  # how the suite spells the function
    args: tuple  # the argument values
    line: int  # 1-based line of the call
    source: str  # the call's source text
    test: str | None  # the enclosing test function, if any


class _NotLiteral(Exception):
    pass


def literal_value(node: ast.AST, env: dict[str, object]) -> object:
    """The value of a literal expression, names looked up in `env` (raises _NotLiteral)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [literal_value(e, env) for e in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        keys = [k for k in node.keys if k is not None]  # `**spread` has no key: not a literal
        if len(keys) == len(node.keys):
            return {literal_value(k, env): literal_value(v, env) for k, v in zip(keys, node.values, strict=True)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = literal_value(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Name) and node.id in env:
        import copy

        return copy.deepcopy(env[node.id])
    raise _NotLiteral


def module_constants(tree: ast.Module) -> dict[str, object]:
    """Module-level names bound once to a literal."""
    env: dict[str, object] = {}
    counts: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            counts[name] = counts.get(name, 0) + 1
            try:
                env[name] = literal_value(node.value, env)
            except (_NotLiteral, TypeError):
                env.pop(name, None)
    return {k: v for k, v in env.items() if counts[k] == 1}


def suite_calls(suite_text: str, entries: list[Entry]) -> list[SuiteCall]:
    """Every call of `entries` in the suite whose arguments are all literals, in source order."""
    tree = parse_suite(suite_text)
    if tree is None:
        return []
    env = module_constants(tree)
    by_name = {name: e for e in entries for name in e.local_names}
    passed = _passed_as_argument(tree, by_name)
    out: list[SuiteCall] = []

    def visit(node: ast.AST, test: str | None, names: dict[str, Entry]) -> None:
        for child in ast.iter_child_nodes(node):
            inner, scope = test, names
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name
                scope = {**names, **passed.get(child.name, {})}
            if isinstance(child, ast.Call):
                name = dotted_name(child.func)
                if name in scope and not child.keywords and not any(isinstance(a, ast.Starred) for a in child.args):
                    try:
                        args = tuple(literal_value(a, env) for a in child.args)
                    except (_NotLiteral, TypeError):
                        args = None
                    if args is not None:
                        out.append(SuiteCall(scope[name].spec, name, args, child.lineno,
                                             ast.get_source_segment(suite_text, child) or "", inner))
            visit(child, inner, scope)

    visit(tree, None, by_name)
    return out


def _passed_as_argument(tree: ast.Module, by_name: dict[str, Entry]) -> dict[str, dict[str, Entry]]:
    """Top-level function -> {parameter: entry} for `check(entry)`-style calls (HumanEval's
    `def check(candidate): assert candidate(1) == 2` then `check(f)`): the parameter is the entry."""
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    out: dict[str, dict[str, Entry]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defs:
            params = [a.arg for a in defs[node.func.id].args.args]
            for param, arg in zip(params, node.args):
                if isinstance(arg, ast.Name) and arg.id in by_name:
                    out.setdefault(node.func.id, {})[param] = by_name[arg.id]
    return out

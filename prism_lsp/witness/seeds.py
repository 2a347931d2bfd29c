"""The calls a suite makes to an entry point, with their literal arguments.

Arguments are read from the suite's source: literals, and names bound to
literals at module level (`PLAYERS = [("ann", 3)]`). A call whose arguments are
not literals (computed, starred) is left out: its inputs are unknown. With
`forms=True`, calls with keyword arguments and method calls on an instance made
from literals (`Inflector(keep=["sheep"]).singular("glass")`, or `i = Inflector()`
then `i.singular("glass")` in the same test) are read too, each as an entry with
its `CallForm` (`SuiteCall.via`). A name a test binds to a call of the program with literal
arguments (`G = nx.path_graph(4)`) is an argument too: a `built.Built`, made in the sandbox.
Each call keeps where it is (line, enclosing test and statement) so suggestions
can relax or extend it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from prism_lsp.witness.built import Built
from prism_lsp.witness.entry import CallForm, Entry, parse_suite
from prism_lsp.witness.suite_names import dotted_name


@dataclass(frozen=True)
class SuiteCall:
    """One call of an entry point in the suite."""

    entry: str  # module:function
    local_name: str  # how the suite spells the function
    args: tuple  # the argument values
    line: int  # 1-based line of the call
    source: str  # the call's source text
    test: str | None  # the enclosing test function, if any
    via: Entry | None = None  # the entry with its call form, for keyword and method calls


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


def _literals(nodes: Sequence[ast.AST], keywords: list[ast.keyword], env: dict) -> tuple[tuple, tuple[str, ...]] | None:
    """(values of the positionals then the keywords, keyword names), or None when one is not a literal."""
    if any(isinstance(a, ast.Starred) for a in nodes) or any(k.arg is None for k in keywords):
        return None
    try:
        values = tuple(literal_value(a, env) for a in [*nodes, *(k.value for k in keywords)])
    except (_NotLiteral, TypeError):
        return None
    return values, tuple(k.arg for k in keywords if k.arg is not None)  # none is None: checked above


class _Segments:
    """Source text of nodes, the text split into lines once (`ast.get_source_segment` splits the
    whole text again for every node: quadratic on a repository's thousand-call test module)."""

    def __init__(self, text: str) -> None:
        # Lines as the parser counts them: only \r\n, \r and \n end one (str.splitlines also
        # splits at \f, \x1c, \u2028..., which would shift every later line).
        self.lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)

    def of(self, node: ast.expr) -> str:
        end_line, end_col = node.end_lineno, node.end_col_offset
        if end_line is None or end_col is None or node.lineno > len(self.lines):
            return ""
        first, last = node.lineno - 1, end_line - 1
        if first == last:
            return self.lines[first].encode()[node.col_offset : end_col].decode(errors="replace")
        head = self.lines[first].encode()[node.col_offset :].decode(errors="replace")
        tail = self.lines[last].encode()[:end_col].decode(errors="replace")
        return head + "".join(self.lines[first + 1 : last]) + tail


def suite_calls(suite_text: str, entries: list[Entry], *, forms: bool = False) -> list[SuiteCall]:
    """Every call of `entries` in the suite whose arguments are all literals, in source order
    (`forms`: keyword and method calls too, see the module's docstring)."""
    tree = parse_suite(suite_text)
    if tree is None:
        return []
    env = module_constants(tree)
    by_name = {name: e for e in entries for name in e.local_names}
    passed = _passed_as_argument(tree, by_name)
    segments = _Segments(suite_text)
    out: list[SuiteCall] = []

    def add(entry: Entry, name: str, args: tuple, child: ast.Call, test: str | None, formed: bool) -> None:
        out.append(
            SuiteCall(
                entry.spec,
                name,
                args,
                child.lineno,
                segments.of(child),
                test,
                entry if formed else None,
            )
        )

    def method_call(child: ast.Call, scope: dict[str, Entry], made: dict[str, tuple]) -> tuple | None:
        """(entry, name, args) of `Class(...).m(...)` or `obj.m(...)` with `obj = Class(...)`."""
        func = child.func
        if not isinstance(func, ast.Attribute):
            return None
        called = dotted_name(func.value.func) if isinstance(func.value, ast.Call) else None
        if isinstance(func.value, ast.Call) and called is not None and called in scope:
            name = called
            init = _literals(func.value.args, func.value.keywords, env)
        elif isinstance(func.value, ast.Name) and func.value.id in made:
            name, init = made[func.value.id]
        else:
            return None
        call = _literals(child.args, child.keywords, env)
        if init is None or call is None:
            return None
        cls = scope[name]
        form = CallForm(
            init=(len(init[0]) - len(init[1]), init[1]), positional=len(call[0]) - len(call[1]), keywords=call[1]
        )
        return Entry(cls.module, f"{cls.function}.{func.attr}", (name,), form), name, init[0] + call[0]

    def visit(
        node: ast.AST, test: str | None, names: dict[str, Entry], made: dict[str, tuple], built: dict[str, Built]
    ) -> None:
        for child in ast.iter_child_nodes(node):
            inner, scope, here, objects = test, names, made, built
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name
                scope = {**names, **passed.get(child.name, {})}
                here, objects = {}, {}  # instances a test makes are its own
            if isinstance(child, ast.Assign):
                _bind_built(child, scope, env, built)
            if (
                forms
                and isinstance(child, ast.Assign)
                and len(child.targets) == 1
                and isinstance(child.targets[0], ast.Name)
                and isinstance(child.value, ast.Call)
                and dotted_name(child.value.func) in scope
            ):
                init = _literals(child.value.args, child.value.keywords, env)
                if init is not None:
                    made[child.targets[0].id] = (dotted_name(child.value.func), init)
                else:
                    made.pop(child.targets[0].id, None)
            if isinstance(child, ast.Call):
                name = dotted_name(child.func)
                # Names bound to built arguments: copied only for a call of an entry (a test holds
                # thousands of nodes).
                known = {**env, **built} if built and name in scope else env
                if name in scope and not child.keywords and not any(isinstance(a, ast.Starred) for a in child.args):
                    try:
                        args = tuple(literal_value(a, known) for a in child.args)
                    except (_NotLiteral, TypeError):
                        args = None
                    if args is not None:
                        add(scope[name], name, args, child, inner, False)
                elif forms and name in scope and child.keywords:
                    found = _literals(child.args, child.keywords, known)
                    if found is not None:
                        e = scope[name]
                        form = CallForm(positional=len(found[0]) - len(found[1]), keywords=found[1])
                        add(Entry(e.module, e.function, e.local_names, form), name, found[0], child, inner, True)
                elif forms:
                    method = method_call(child, scope, made)
                    if method is not None:
                        add(method[0], method[1], method[2], child, inner, True)
            visit(child, inner, scope, here, objects)

    visit(tree, None, by_name, {}, {})
    return out


def _bind_built(node: ast.Assign, scope: dict[str, Entry], env: dict, built: dict[str, Built]) -> None:
    """`x = f(literals)` with `f` a function of the program: `x` stands for that call (built in the
    sandbox) in the calls after it; `x` bound to anything else stands for nothing."""
    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
    for name in names:
        built.pop(name, None)
    call = node.value
    if len(names) != 1 or len(node.targets) != 1 or not isinstance(call, ast.Call):
        return
    callee = dotted_name(call.func)
    entry = scope.get(callee) if callee is not None else None
    found = _literals(call.args, call.keywords, env)  # literals only: a built argument is one call deep
    if entry is None or callee is None or found is None or entry.form is not None:
        return
    values, keywords = found
    n = len(values) - len(keywords)
    built[names[0]] = Built(entry.target, callee, values[:n], dict(zip(keywords, values[n:])))


def formed_entries(calls: list[SuiteCall]) -> list[Entry]:
    """The entries, with their call forms, of the keyword and method calls among `calls`."""
    return list({c.via.spec: c.via for c in calls if c.via is not None}.values())


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

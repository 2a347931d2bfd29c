"""Mutants of the reference, made with libcst, following the seeds' failure taxonomy.

Operators: comparison and boundary flips, ± 1 integer constants, `and`/`or` swaps, negated or
dropped conditions, dropped `else`/`elif` branches, dropped statements, swapped arguments,
slice bounds, dropped `sorted`/`set`/`strip`/`lower`... calls, and returning a neighbouring
expression. Each mutant changes one place. Enumeration is deterministic (libcst's traversal order,
then operator variant order), so the same reference always gives the same mutants in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "!=", "!=": "==", "in": "not in",
         "not in": "in", "is": "is not", "is not": "is"}
_OPS = {"<": cst.LessThan, "<=": cst.LessThanEqual, ">": cst.GreaterThan, ">=": cst.GreaterThanEqual,
        "==": cst.Equal, "!=": cst.NotEqual, "in": cst.In, "not in": cst.NotIn, "is": cst.Is, "is not": cst.IsNot}
_SYMBOL = {cls: sym for sym, cls in _OPS.items()}
# Calls whose loss is a classic bug: the argument (or the object) is returned unchanged instead.
_DROPPABLE_FUNCS = {"sorted", "set", "reversed", "abs", "round", "int", "list", "tuple"}
_DROPPABLE_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "copy"}


@dataclass(frozen=True)
class Mutant:
    """One mutation of one file of the reference: where, which operator, and the new file text."""

    file: str          # path relative to the program tree
    line: int
    operator: str
    description: str   # e.g. "boundary: `a < b` -> `a <= b`"
    source: str


class _Mutator(cst.CSTTransformer):
    """Counts mutation sites in traversal order; when `target` is reached, applies that one."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, target: int = -1):
        super().__init__()
        self.module = module
        self.target = target
        self.count = 0
        self.sites: list[tuple[int, str, str]] = []   # (line, operator, description), when counting
        self._names: list[list[str]] = []              # per enclosing function: names it binds

    # -- bookkeeping ------------------------------------------------------------------------
    def _offer(self, original: cst.CSTNode, updated: cst.CSTNode, replacement: cst.CSTNode | None,
               operator: str, new_code: str | None = None) -> cst.CSTNode | None:
        """Register one variant; return its replacement when it is the target, else None."""
        index = self.count
        self.count += 1
        if self.target < 0:
            line = self.get_metadata(PositionProvider, original).start.line
            old = self.module.code_for_node(original).strip().splitlines()[0]
            if new_code is None:
                new_code = "" if replacement is None or isinstance(replacement, cst.RemovalSentinel) else \
                    self.module.code_for_node(replacement).strip().splitlines()[0]
            self.sites.append((line, operator, f"{operator}: `{old}` -> `{new_code}`"))
            return None
        return replacement if index == self.target else None

    def _try(self, original, updated, variants):
        for replacement, operator, *new_code in variants:
            hit = self._offer(original, updated, replacement, operator, *(new_code or [None]))
            if hit is not None:
                return hit
        return updated

    # -- operators --------------------------------------------------------------------------
    def leave_Comparison(self, original, updated):
        variants = []
        for i, target in enumerate(updated.comparisons):
            sym = _SYMBOL.get(type(target.operator))
            for table, name in ((_BOUNDARY, "boundary"), (_FLIP, "comparison")):
                if sym in table:
                    op = _OPS[table[sym]]()
                    comps = list(updated.comparisons)
                    comps[i] = target.with_changes(operator=op)
                    variants.append((updated.with_changes(comparisons=comps), name))
        return self._try(original, updated, variants)

    def leave_Integer(self, original, updated):
        value = original.evaluated_value
        if not isinstance(value, int):
            return updated
        variants = [(cst.Integer(str(value + 1)), "constant")]
        variants.append((cst.parse_expression(str(value - 1)), "constant"))
        return self._try(original, updated, variants)

    def leave_Name(self, original, updated):
        if updated.value not in ("True", "False"):
            return updated
        flipped = cst.Name("False" if updated.value == "True" else "True")
        return self._try(original, updated, [(flipped, "constant")])

    def leave_BooleanOperation(self, original, updated):
        swap = cst.Or() if isinstance(updated.operator, cst.And) else cst.And()
        return self._try(original, updated, [(updated.with_changes(operator=swap), "and-or")])

    def _condition_variants(self, updated, test):
        return [(updated.with_changes(test=cst.UnaryOperation(cst.Not(), _paren(test))), "negate-condition"),
                (updated.with_changes(test=cst.Name("True")), "drop-condition")]

    def leave_If(self, original, updated):
        variants = self._condition_variants(updated, updated.test)
        if updated.orelse is not None:
            variants.append((updated.with_changes(orelse=None), "drop-branch", "(else/elif branch removed)"))
        return self._try(original, updated, variants)

    def leave_While(self, original, updated):
        # `while True` stays: negating it skips the loop, which "dropped statement" already covers.
        return self._try(original, updated, self._condition_variants(updated, updated.test)[:1])

    def leave_IfExp(self, original, updated):
        return self._try(original, updated, [
            (updated.with_changes(test=cst.UnaryOperation(cst.Not(), _paren(updated.test))), "negate-condition"),
            (updated.body, "drop-branch"), (updated.orelse, "drop-branch")])

    def leave_IndentedBlock(self, original, updated):
        body = list(updated.body)
        for i, stmt in enumerate(original.body):
            if not isinstance(stmt, cst.SimpleStatementLine) or _is_docstring_or_pass(stmt):
                continue
            rest = body[:i] + body[i + 1:]
            if all(_is_docstring_or_pass(s) for s in rest):
                rest.append(cst.SimpleStatementLine([cst.Pass()]))  # a block cannot be empty
            removed = "(" + self.module.code_for_node(stmt).strip().splitlines()[0] + " removed)"
            # Offered at the dropped statement (its line is the mutant's line), applied to the block.
            hit = self._offer(stmt, stmt, updated.with_changes(body=rest), "drop-statement", removed)
            if hit is not None:
                return hit
        return updated

    def leave_Call(self, original, updated):
        variants = []
        args = list(updated.args)
        positional = [a for a in args if a.keyword is None and not a.star]
        if len(positional) == len(args) and len(args) >= 2:
            for i in range(len(args) - 1):
                swapped = list(args)
                swapped[i] = args[i].with_changes(value=args[i + 1].value)
                swapped[i + 1] = args[i + 1].with_changes(value=args[i].value)
                variants.append((updated.with_changes(args=swapped), "swap-arguments"))
        func = updated.func
        if isinstance(func, cst.Name) and func.value in _DROPPABLE_FUNCS and positional and not args[0].keyword:
            variants.append((_paren(args[0].value), "drop-call"))
        if isinstance(func, cst.Attribute) and func.attr.value in _DROPPABLE_METHODS and not args:
            variants.append((func.value, "drop-call"))
        return self._try(original, updated, variants)

    def leave_Subscript(self, original, updated):
        if len(updated.slice) != 1 or not isinstance(updated.slice[0].slice, cst.Slice):
            return updated
        element = updated.slice[0]
        sl = element.slice
        variants = []
        for bound in ("lower", "upper"):
            value = getattr(sl, bound)
            if value is None:
                if bound == "lower":
                    variants.append((sl.with_changes(lower=cst.Integer("1")), "slice"))
                continue
            for op in (cst.Add(), cst.Subtract()):
                variants.append((sl.with_changes(**{bound: cst.BinaryOperation(_paren(value), op, cst.Integer("1"))}),
                                 "slice"))
            variants.append((sl.with_changes(**{bound: None}), "slice"))
        return self._try(original, updated, [
            (updated.with_changes(slice=[element.with_changes(slice=s)]), op) for s, op in variants])

    def visit_FunctionDef(self, node):
        names: list[str] = [p.name.value for p in node.params.params]
        collector = _Bound()
        node.body.visit(collector)
        self._names.append(sorted(set(names) | collector.names))

    def leave_FunctionDef(self, original, updated):
        self._names.pop()
        return updated

    def leave_Return(self, original, updated):
        value = updated.value
        if value is None:
            return updated
        variants = [(updated.with_changes(value=child), "return-neighbour") for child in _parts(value)]
        current = self.module.code_for_node(value).strip()
        for name in (self._names[-1] if self._names else []):
            if name != current:
                variants.append((updated.with_changes(value=cst.Name(name)), "return-neighbour"))
        return self._try(original, updated, variants)


class _Bound(cst.CSTVisitor):
    """Names a function body binds (assignments, loop targets): its neighbouring values."""

    def __init__(self):
        super().__init__()
        self.names: set[str] = set()

    def visit_AssignTarget(self, node):
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_For(self, node):
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_FunctionDef(self, node):
        return False  # a nested function's names are not this one's

    def visit_Lambda(self, node):
        return False


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` safe to place where a tighter-binding operator expects an atom."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Call, cst.Attribute,
                         cst.Subscript, cst.List, cst.Tuple, cst.Dict, cst.Set)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _parts(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The direct sub-expressions of a returned expression (the "neighbouring" values)."""
    if isinstance(value, cst.BinaryOperation):
        return [value.left, value.right]
    if isinstance(value, cst.Call):
        parts = [a.value for a in value.args if not a.star]
        if isinstance(value.func, cst.Attribute):
            parts.append(value.func.value)
        return parts
    if isinstance(value, cst.Subscript):
        return [value.value]
    if isinstance(value, cst.UnaryOperation):
        return [value.expression]
    return []


def _is_docstring_or_pass(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString))


def mutants_of(file: str, source: str) -> list[Mutant]:
    """Every single-place mutant of `source` (the text of `file`) that still compiles, in traversal order.

    Duplicates (two operators giving the same text) and no-ops are left out; a file libcst
    cannot parse gives none.
    """
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return []
    counter = _Mutator(module)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(counter)
    out: list[Mutant] = []
    seen = {source}
    for index, (line, operator, description) in enumerate(counter.sites):
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        text = wrapper.visit(_Mutator(module, target=index)).code
        if text in seen:
            continue
        seen.add(text)
        try:
            compile(text, file, "exec")
        except (SyntaxError, ValueError):
            continue
        out.append(Mutant(file=file, line=line, operator=operator, description=description, source=text))
    return out

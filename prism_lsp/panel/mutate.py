"""Mutants of the reference, made with libcst, following the seeds' failure taxonomy.

Operators: comparison and boundary flips, ± 1 integer constants, `and`/`or` swaps, negated or
dropped conditions, dropped `else`/`elif` branches, dropped statements, swapped arguments,
slice bounds, dropped `sorted`/`set`/`strip`/`lower`... calls, and returning a neighbouring
expression. Each mutant changes one place. Enumeration is deterministic (libcst's traversal order,
then operator variant order), so the same reference always gives the same mutants in the same order.

The file is parsed once and walked once: each site becomes an edit of the source text at the
node's span (positions from libcst, resolved once), so a mutant costs a string splice and a
`compile`, not a pass over the whole module; and only the sites on `lines` (the lines a fix
changed) are made at all, so the work follows the change, not the file.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_FLIP = {
    "<": ">",
    "<=": ">=",
    ">": "<",
    ">=": "<=",
    "==": "!=",
    "!=": "==",
    "in": "not in",
    "not in": "in",
    "is": "is not",
    "is not": "is",
}
_OPS = {
    "<": cst.LessThan,
    "<=": cst.LessThanEqual,
    ">": cst.GreaterThan,
    ">=": cst.GreaterThanEqual,
    "==": cst.Equal,
    "!=": cst.NotEqual,
    "in": cst.In,
    "not in": cst.NotIn,
    "is": cst.Is,
    "is not": cst.IsNot,
}
_SYMBOL = {cls: sym for sym, cls in _OPS.items()}
# Calls whose loss is a classic bug: the argument (or the object) is returned unchanged instead.
_DROPPABLE_FUNCS = {"sorted", "set", "reversed", "abs", "round", "int", "list", "tuple"}
_DROPPABLE_METHODS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "copy"}


@dataclass(frozen=True)
class Mutant:
    """One mutation of one file of the reference: where, which operator, and the new file text."""

    file: str  # path relative to the program tree
    line: int
    operator: str
    description: str  # e.g. "boundary: `a < b` -> `a <= b`"
    source: str


@dataclass(frozen=True)
class Site:
    """One mutation site: replace source[start:end] by `text`."""

    line: int
    operator: str
    description: str
    start: int
    end: int
    text: str


class _Offsets:
    """Line/column positions (libcst's, 1-based lines) as offsets into the source text."""

    def __init__(self, source: str):
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def at(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column

    def line_start(self, line: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1]


class _Sites(cst.CSTVisitor):
    """Walks the module once; each operator's variants become `Site`s (only on `lines`, if given)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, source: str, lines: Collection[int] | None):
        super().__init__()
        self.module = module
        self.offsets = _Offsets(source)
        self.lines = lines
        self.sites: list[Site] = []
        self._names: list[list[str]] = []  # per enclosing function: names it binds

    # -- bookkeeping ------------------------------------------------------------------------
    def _range(self, node: cst.CSTNode) -> CodeRange:
        return self.get_metadata(PositionProvider, node)

    def _wanted(self, node: cst.CSTNode) -> bool:
        return self.lines is None or self._range(node).start.line in self.lines

    def _code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def _add(self, at: cst.CSTNode, operator: str, old: str, new: str, start: int, end: int, text: str) -> None:
        self.sites.append(
            Site(self._range(at).start.line, operator, f"{operator}: `{old}` -> `{new}`", start, end, text)
        )

    def _replace(
        self,
        original: cst.CSTNode,
        whole: cst.CSTNode,
        operator: str,
        new_code: str | None = None,
        span_of: cst.CSTNode | None = None,
        piece: cst.CSTNode | None = None,
    ) -> None:
        """Offer `whole` in place of `original` (or, with `span_of`, `piece` in place of that part of it:
        the same mutant, a smaller edit); described as `original` -> `whole`."""
        target, replacement = (original, whole) if span_of is None or piece is None else (span_of, piece)
        r = self._range(target)
        # A span excludes the node's own parentheses: a replacement that kept them renders without.
        lpar = getattr(target, "lpar", None)
        if lpar and getattr(replacement, "lpar", None) is lpar:
            replacement = replacement.with_changes(lpar=[], rpar=[])
        self._add(
            original,
            operator,
            self._line_of(original),
            self._line_of(whole) if new_code is None else new_code,
            self.offsets.at(r.start.line, r.start.column),
            self.offsets.at(r.end.line, r.end.column),
            self._code(replacement),
        )

    def _line_of(self, node: cst.CSTNode) -> str:
        """The first line of `node`'s code (what a description shows)."""
        return (self._code(node).strip().splitlines() or [""])[0]

    # -- operators --------------------------------------------------------------------------
    def leave_Comparison(self, original):
        if not self._wanted(original):
            return
        for i, target in enumerate(original.comparisons):
            sym = _SYMBOL.get(type(target.operator))
            for table, name in ((_BOUNDARY, "boundary"), (_FLIP, "comparison")):
                if sym in table:
                    comps = list(original.comparisons)
                    comps[i] = target.with_changes(operator=_OPS[table[sym]]())
                    self._replace(original, original.with_changes(comparisons=comps), name)

    def leave_Integer(self, original):
        value = original.evaluated_value
        if not isinstance(value, int) or not self._wanted(original):
            return
        self._replace(original, cst.Integer(str(value + 1)), "constant")
        self._replace(original, cst.parse_expression(str(value - 1)), "constant")

    def leave_Name(self, original):
        if original.value in ("True", "False") and self._wanted(original):
            self._replace(original, cst.Name("False" if original.value == "True" else "True"), "constant")

    def leave_BooleanOperation(self, original):
        if self._wanted(original):
            swap = cst.Or() if isinstance(original.operator, cst.And) else cst.And()
            self._replace(original, original.with_changes(operator=swap), "and-or")

    def _condition(self, original, test, first_only: bool = False) -> None:
        # Described by the header line alone: rendering a whole `if` block per site costs its size.
        keyword = "while" if isinstance(original, cst.While) else "if"
        negated = cst.UnaryOperation(cst.Not(), _paren(test))
        old = f"{keyword} {self._line_of(test)}:"
        variants = [(negated, "negate-condition")] + ([] if first_only else [(cst.Name("True"), "drop-condition")])
        for piece, operator in variants:
            r = self._range(test)
            self._add(
                original,
                operator,
                old,
                f"{keyword} {self._line_of(piece)}:",
                self.offsets.at(r.start.line, r.start.column),
                self.offsets.at(r.end.line, r.end.column),
                self._code(piece),
            )

    def leave_If(self, original):
        if not self._wanted(original):
            return
        self._condition(original, original.test)
        if original.orelse is not None:
            # The whole lines of the `else`/`elif` clause go (it starts and ends on lines of its own).
            r = self._range(original.orelse)
            self._add(
                original,
                "drop-branch",
                f"if {self._line_of(original.test)}:",
                "(else/elif branch removed)",
                self.offsets.line_start(r.start.line),
                self.offsets.line_start(r.end.line + 1),
                "",
            )

    def leave_While(self, original):
        # `while True` stays: negating it skips the loop, which "dropped statement" already covers.
        if self._wanted(original):
            self._condition(original, original.test, first_only=True)

    def leave_IfExp(self, original):
        if not self._wanted(original):
            return
        self._replace(
            original,
            original.with_changes(test=cst.UnaryOperation(cst.Not(), _paren(original.test))),
            "negate-condition",
        )
        self._replace(original, original.body, "drop-branch")
        self._replace(original, original.orelse, "drop-branch")

    def leave_IndentedBlock(self, original):
        for stmt in original.body:
            if not isinstance(stmt, cst.SimpleStatementLine) or _is_docstring_or_pass(stmt) or not self._wanted(stmt):
                continue
            # `pass` in its place: the block stays a block, whatever else it holds.
            r = self._range(stmt)
            removed = "(" + self._line_of(stmt) + " removed)"
            self._add(
                stmt,
                "drop-statement",
                self._line_of(stmt),
                removed,
                self.offsets.at(r.start.line, r.start.column),
                self.offsets.at(r.end.line, r.end.column),
                "pass",
            )

    def leave_Call(self, original):
        if not self._wanted(original):
            return
        args = list(original.args)
        positional = [a for a in args if a.keyword is None and not a.star]
        if len(positional) == len(args) and len(args) >= 2:
            for i in range(len(args) - 1):
                swapped = list(args)
                swapped[i] = args[i].with_changes(value=args[i + 1].value)
                swapped[i + 1] = args[i + 1].with_changes(value=args[i].value)
                self._replace(original, original.with_changes(args=swapped), "swap-arguments")
        func = original.func
        if isinstance(func, cst.Name) and func.value in _DROPPABLE_FUNCS and positional and not args[0].keyword:
            self._replace(original, _paren(args[0].value), "drop-call")
        if isinstance(func, cst.Attribute) and func.attr.value in _DROPPABLE_METHODS and not args:
            self._replace(original, func.value, "drop-call")

    def leave_Subscript(self, original):
        if len(original.slice) != 1 or not isinstance(original.slice[0].slice, cst.Slice) or not self._wanted(original):
            return
        element = original.slice[0]
        sl = element.slice
        for bound in ("lower", "upper"):
            value = getattr(sl, bound)
            variants = []
            if value is None:
                if bound == "lower":
                    variants.append(sl.with_changes(lower=cst.Integer("1")))
            else:
                for op in (cst.Add(), cst.Subtract()):
                    variants.append(
                        sl.with_changes(**{bound: cst.BinaryOperation(_paren(value), op, cst.Integer("1"))})
                    )
                variants.append(sl.with_changes(**{bound: None}))
            for s in variants:
                self._replace(original, original.with_changes(slice=[element.with_changes(slice=s)]), "slice")

    def visit_FunctionDef(self, node):
        names: list[str] = [p.name.value for p in node.params.params]
        collector = _Bound()
        node.body.visit(collector)
        self._names.append(sorted(set(names) | collector.names))

    def leave_FunctionDef(self, original):
        self._names.pop()

    def leave_Return(self, original):
        value = original.value
        if value is None or not self._wanted(original):
            return
        for child in _parts(value):
            self._replace(original, original.with_changes(value=child), "return-neighbour", span_of=value, piece=child)
        current = self._code(value).strip()
        for name in self._names[-1] if self._names else []:
            if name != current:
                self._replace(
                    original,
                    original.with_changes(value=cst.Name(name)),
                    "return-neighbour",
                    span_of=value,
                    piece=cst.Name(name),
                )


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
    if (
        isinstance(
            node,
            (
                cst.Name,
                cst.Integer,
                cst.Float,
                cst.SimpleString,
                cst.Call,
                cst.Attribute,
                cst.Subscript,
                cst.List,
                cst.Tuple,
                cst.Dict,
                cst.Set,
            ),
        )
        or node.lpar
    ):
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


@dataclass(frozen=True)
class _Chunk:
    """One top-level statement of a file: its text starts at `offset` (characters), line `first`."""

    first: int
    offset: int
    text: str


def parse_or_none(source: str) -> ast.Module | None:
    """`source`'s `ast`, None when it does not parse (a file that does not parse has no sites)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def statements_of(source: str, lines: Collection[int] | None, tree: ast.Module | None = None) -> list[_Chunk]:
    """The top-level statements of `source` (those touching `lines`, when given), found with `ast`
    (`tree`, when the caller parsed it already).

    Each parses on its own (it starts at column 0), so only the statements a change touches are
    ever given to libcst, and a mutant compiles as its statement, not as the whole file.
    """
    if tree is None:
        tree = parse_or_none(source)
    if tree is None:
        return []
    offsets = _Offsets(source)
    wanted = None if lines is None else set(lines)
    out = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        last = node.end_lineno or node.lineno
        if wanted is not None and not any(first <= n <= last for n in wanted):
            continue
        start, end = offsets.line_start(first), offsets.line_start(last + 1)
        out.append(_Chunk(first, start, source[start:end] if end > start else source[start:]))
    return out


def statement_sites(chunk: _Chunk, lines: set[int] | None) -> list[Site]:
    try:
        module = cst.parse_module(chunk.text)
    except cst.ParserSyntaxError:
        return []
    local = None if lines is None else {n - chunk.first + 1 for n in lines}
    visitor = _Sites(module, chunk.text, local)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(visitor)
    return visitor.sites


def sites_of(source: str, lines: Collection[int] | None = None) -> list[tuple[_Chunk, Site]]:
    """Every mutation site of `source` (on `lines` only, when given), in traversal order, each with
    its statement (positions in a site are the statement's); none when the file does not parse."""
    wanted = None if lines is None else set(lines)
    return [(chunk, site) for chunk in statements_of(source, wanted) for site in statement_sites(chunk, wanted)]


def mutant_at(file: str, source: str, chunk: _Chunk, site: Site) -> Mutant | None:
    """The mutant of one site (None when it does not compile or changes nothing): a splice of the
    statement's text, compiled as that statement alone."""
    statement = chunk.text[: site.start] + site.text + chunk.text[site.end :]
    if statement == chunk.text:
        return None
    try:
        compile(statement, file, "exec")
    except (SyntaxError, ValueError):
        return None
    text = source[: chunk.offset] + statement + source[chunk.offset + len(chunk.text) :]
    return Mutant(
        file=file, line=chunk.first + site.line - 1, operator=site.operator, description=site.description, source=text
    )


def iter_mutants(file: str, source: str, lines: Collection[int] | None = None) -> Iterator[Mutant]:
    """The single-place mutants of `source` (the text of `file`) that still compile, made one at a time.

    Duplicates (two operators giving the same text) and no-ops are left out.
    """
    seen = {source}
    for chunk, site in sites_of(source, lines):
        m = mutant_at(file, source, chunk, site)
        if m is not None and m.source not in seen:
            seen.add(m.source)
            yield m


def mutants_of(file: str, source: str, lines: Collection[int] | None = None) -> list[Mutant]:
    """Every single-place mutant of `source` that still compiles (on `lines` only, when given)."""
    return list(iter_mutants(file, source, lines))

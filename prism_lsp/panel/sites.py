"""Where `panel build` mutates a fix: the lines it changed, widened to their functions when too few.

A small fix often offers one or two mutants on its own lines (an argument added to a call, a
reformatted signature, a blank line), too few for a panel; the function around it is about the
same behaviour. So when the changed lines of all the fix's files give fewer than
`MIN_CHANGED_MUTANTS` distinct mutants, the sites of the innermost function (or method) body holding
each changed line are added after them: the nearest to a changed line first, at most
`MAX_WIDENED_SITES`. A changed line outside every function (a module-level table, an import) widens
to nothing. Both kinds of site come from the same libcst pass over the statements the change
touches: the widened lines only enlarge the set that pass keeps sites on.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from prism_lsp.panel.mutate import Site, _Chunk, mutant_at, parse_or_none, statement_sites, statements_of

# Fewer mutants than this on the changed lines cannot make a panel of 3 proven mutants (issue 22).
MIN_CHANGED_MUTANTS = 3
# The witness search's time grows with the programs it tells apart: on tabulate's escape fix (issue
# 22), 40 widened sites (37 mutants) ran out the 60 s budget with 11 unjudged; 20 (18) were all judged.
MAX_WIDENED_SITES = 20

FileSite = tuple[str, _Chunk, Site]  # (file, its top-level statement, a site in it)


@dataclass(frozen=True)
class Body:
    """The body of a function or method: `name` (qualified, `Class.method`), lines `first`..`last`."""

    name: str
    first: int
    last: int


@dataclass(frozen=True)
class Sites:
    """The mutation sites of a fix: those on its changed lines, then the widened ones (if any)."""

    changed: list[FileSite]
    widened: list[FileSite]  # empty unless the changed lines gave fewer than the minimum
    changed_mutants: int  # distinct mutants of `changed`, counted up to the minimum (0 when not widening)
    bodies: dict[str, list[Body]]  # file -> the function bodies widened into (when widened)

    @property
    def all(self) -> list[FileSite]:
        return self.changed + self.widened


def enclosing_bodies(tree: ast.Module, lines: Collection[int]) -> list[Body]:
    """The innermost function (or method) holding each of `lines` — its decorators and signature
    included, so a changed signature widens to its function — as its body's lines, in line order."""
    found: list[Body] = []
    claimed: set[int] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, prefix)
                continue
            name = f"{prefix}{child.name}"
            walk(child, name + ".")  # nested functions first: they claim their lines (innermost wins)
            if isinstance(child, ast.ClassDef):
                continue
            first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
            last = child.end_lineno or child.lineno
            held = {n for n in lines if first <= n <= last} - claimed
            if held:
                claimed.update(held)
                found.append(Body(name, child.body[0].lineno, last))

    walk(tree, "")
    return sorted(found, key=lambda b: b.first)


def _distance(line: int, lines: Collection[int]) -> int:
    return min(abs(line - n) for n in lines)


def find_sites(
    texts: Mapping[str, str],
    changed: Mapping[str, Collection[int]],
    initial: Mapping[str, str | None] | None = None,
    *,
    widen: bool = True,
    minimum: int = MIN_CHANGED_MUTANTS,
    cap: int = MAX_WIDENED_SITES,
) -> Sites:
    """The sites on the `changed` lines of each file of `texts` (Python sources of the fix), in
    traversal order; with `widen`, when their distinct mutants (not the `initial` text, which undoes
    the fix) are fewer than `minimum`, the sites of the changed lines' enclosing function bodies too,
    nearest first, at most `cap`."""
    initial = initial or {}
    on_lines: list[FileSite] = []
    around: list[tuple[int, int, FileSite]] = []  # (distance to the change, traversal order, site)
    bodies: dict[str, list[Body]] = {}
    for rel, source in texts.items():
        lines = set(changed.get(rel, ()))
        tree = parse_or_none(source) if lines else None
        if tree is None:
            continue
        found = enclosing_bodies(tree, lines) if widen else []
        if found:
            bodies[rel] = found
        wider = lines.union(*(range(b.first, b.last + 1) for b in found))
        for chunk in statements_of(source, lines, tree):
            for site in statement_sites(chunk, wider):
                line = chunk.first + site.line - 1
                if line in lines:
                    on_lines.append((rel, chunk, site))
                else:
                    around.append((_distance(line, lines), len(around), (rel, chunk, site)))
    count = _count_mutants(texts, initial, on_lines, minimum) if widen else 0
    if count >= minimum or not around:
        return Sites(on_lines, [], count, {})
    widened = [site for _, _, site in sorted(around)[:cap]]
    used = {
        rel: [b for b in found if any(r == rel and b.first <= c.first + s.line - 1 <= b.last for r, c, s in widened)]
        for rel, found in bodies.items()
    }
    return Sites(on_lines, widened, count, {rel: found for rel, found in used.items() if found})


def _count_mutants(
    texts: Mapping[str, str], initial: Mapping[str, str | None], sites: list[FileSite], up_to: int
) -> int:
    """Distinct mutants of `sites` that compile and are not the initial program, counted up to `up_to`
    (each is a splice and a `compile` of one statement: the count stops as soon as it is enough)."""
    seen: set[tuple[str, str]] = set()
    for rel, chunk, site in sites:
        if len(seen) >= up_to:
            break
        m = mutant_at(rel, texts[rel], chunk, site)
        if m is not None and m.source != initial.get(rel):
            seen.add((rel, m.source))
    return len(seen)

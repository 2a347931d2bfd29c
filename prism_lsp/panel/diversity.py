"""AST diversity of the valid candidates: mean pairwise Jaccard distance of depth-3 subtree features.

A feature is one node printed with its children down to depth 3, identifiers (variable,
parameter and function names) and constant values normalized away, so renaming a variable
or changing a literal does not make two implementations look different; a different
algorithm (another loop, another library call, another data structure) does.
"""

from __future__ import annotations

import ast
from itertools import combinations

DEPTH = 3
WARN_BELOW = 0.5


def _shape(node: ast.AST, depth: int) -> str:
    name = type(node).__name__
    if isinstance(node, ast.Constant):
        return f"Constant:{type(node.value).__name__}"
    if isinstance(node, ast.Attribute):
        name = f"Attribute.{node.attr}"  # the method or field used is behaviour, not a name choice
    if depth == 0:
        return name
    children = [
        _shape(c, depth - 1) for c in ast.iter_child_nodes(node) if not isinstance(c, (ast.Load, ast.Store, ast.Del))
    ]
    return f"{name}({','.join(children)})" if children else name


def features(source: str) -> set[str]:
    """The depth-3 subtree features of a module's text (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {_shape(node, DEPTH) for node in ast.walk(tree) if not isinstance(node, (ast.Load, ast.Store, ast.Del))}


def jaccard_distance(a: set[str], b: set[str]) -> float:
    union = a | b
    return 1 - len(a & b) / len(union) if union else 0.0


def mean_pairwise_distance(feature_sets: list[set[str]]) -> float | None:
    """Mean Jaccard distance over all pairs; None with fewer than two candidates."""
    pairs = list(combinations(feature_sets, 2))
    if not pairs:
        return None
    return sum(jaccard_distance(a, b) for a, b in pairs) / len(pairs)

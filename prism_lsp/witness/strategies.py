"""Hypothesis strategies for an entry point's arguments: from its annotations, else from the
types the suite's own arguments have.

Annotations are read from the initial program's source (never by importing it: the program
is untrusted and runs only in the sandbox). Examples are drawn with a derandomized Hypothesis
run, so a search is reproducible. Hypothesis is optional (`pip install prism-lsp[witness]`);
without it `examples` returns nothing and the seeded random inputs of `inputs` stand alone.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from prism_lsp.materialize.cache import default_cache_dir

try:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import configuration as _hypothesis_configuration
    from hypothesis import strategies as st
except ImportError:  # optional: witness search works without it
    st = None  # type: ignore[assignment]
else:
    # Hypothesis keeps what it learns (its unicode tables among them) in `.hypothesis/` of the
    # working folder, which for the server is the author's project: Prism's cache instead.
    _hypothesis_configuration.set_hypothesis_home_dir(default_cache_dir() / "hypothesis")

_TEXT = "ab AB1_-.!é"


def _from_value(v: object, depth: int = 0):
    """A strategy producing values shaped like `v`."""
    if isinstance(v, bool):
        return st.booleans()
    if isinstance(v, int):
        return st.integers(-20, max(20, abs(v) * 2))
    if isinstance(v, float):
        return st.floats(-100, 100, allow_nan=False, allow_infinity=False)
    if isinstance(v, str):
        return st.text(_TEXT, max_size=8)
    if isinstance(v, tuple) and len({type(x) for x in v}) > 1 and depth < 3:
        return st.tuples(*[_from_value(x, depth + 1) for x in v])
    if isinstance(v, (list, tuple)) and depth < 3:
        inner = st.one_of(*[_from_value(x, depth + 1) for x in v[:3]]) if v else st.integers(-5, 5)
        return st.lists(inner, max_size=6).map(type(v))
    return st.just(v)


_NAMES = {
    "int": lambda: st.integers(-20, 20),
    "float": lambda: st.floats(-100, 100, allow_nan=False),
    "str": lambda: st.text(_TEXT, max_size=8),
    "bool": lambda: st.booleans(),
}


def _from_annotation(node: ast.AST | None):
    """A strategy for a simple annotation (int, str, list[int], tuple[str, int]...), else None."""
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]()
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = [_from_annotation(a) for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
        if any(i is None for i in inner) or not inner:
            return None
        if node.value.id in ("list", "List", "Sequence"):
            return st.lists(inner[0], max_size=6)
        if node.value.id in ("tuple", "Tuple"):
            return (
                st.lists(inner[0], max_size=6).map(tuple)
                if len(args) == 2 and isinstance(args[1], ast.Constant)
                else st.tuples(*inner)
            )
    return None


def annotated(initial: Path, module: str, function: str):
    """The strategy of the argument tuple from `function`'s annotations (None: not all annotated)."""
    path = initial.joinpath(*module.split(".")).with_suffix(".py")
    if not path.is_file():
        path = initial.joinpath(*module.split("."), "__init__.py")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            parts = [_from_annotation(a.annotation) for a in node.args.args]
            if parts and all(p is not None for p in parts):
                return st.tuples(*parts)
    return None


def examples(seeds: list[tuple], initial: Path, module: str, function: str, count: int = 60) -> list[tuple]:
    """Up to `count` argument tuples drawn from the annotations, else from the seeds' shapes."""
    if st is None or not seeds:
        return []
    return list(_examples(repr(seeds[:4]), str(initial), module, function, count))


@functools.lru_cache(maxsize=256)  # drawing costs ~0.1-1 s; a task's seeds and program rarely change
def _examples(seeds_repr: str, initial_text: str, module: str, function: str, count: int) -> tuple:
    seeds = ast.literal_eval(seeds_repr)
    initial = Path(initial_text)
    strategy = annotated(initial, module, function)
    if strategy is None:
        strategy = st.one_of(*[st.tuples(*[_from_value(a) for a in s]) for s in seeds[:4]])
    drawn: list[tuple] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def draw(args):
        drawn.append(args)

    try:
        draw()
    except Exception:  # a strategy Hypothesis cannot satisfy: the other inputs stand alone
        pass
    return tuple(drawn)

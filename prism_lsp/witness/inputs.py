"""Inputs to probe: the suite's own arguments, type-aware mutations of them, and random
inputs of the same shape.

Mutations change one argument (or one element of it) at a time: numbers ± 1, 0,
negated, large; strings empty, case-changed, padded, non-ASCII, with digits,
punctuation or doubled separators; sequences empty, single, duplicated, reversed,
sorted, one item dropped or changed. Two rounds of mutation reach inputs such as
"a repeated item with a smaller count". Literals of the program's own source
(dictionary keys, thresholds) are swapped in for values of the same type, since
they are where behaviour changes. Random inputs follow the observed shape of the
arguments with a fixed seed, so a search is reproducible; Hypothesis examples
(`strategies`, from the entry's annotations or the observed types) join them.

Every input is an argument tuple whose `repr` is a literal that reads back equal;
inputs are returned in the seeds' shape first (see `shape`), then smallest first.
"""

from __future__ import annotations

import ast
import itertools
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

from prism_lsp.witness.built import MARK, as_built
from prism_lsp.witness.values import round_trips

MAX_INPUTS = 400
# Mutations looked at per round, as a multiple of the limit: a round is a stream cut at this many,
# never a list of every product (a 20-item list's second round is ~10^6 tuples: 23 GB).
ROUND_FACTOR = 4
SECOND_POOL = 20_000  # a second round up to this size is drawn from uniformly, as a whole
_MAX_LEN = 300  # longest argument literal worth probing (a witness is read by people)


def _scalar_mutations(v: object, dictionary: dict[type, list]) -> Iterator[object]:
    if isinstance(v, bool):
        yield not v
        return
    if isinstance(v, int):
        yield from (v + 1, v - 1, 0, -v, 1, -1, v * 10 + 7, 10**6)
    elif isinstance(v, float):
        yield from (0.0, -v, v + 0.5, v - 0.5, round(v))
    elif isinstance(v, str):
        yield from (
            "",
            v.upper(),
            v.lower(),
            v.swapcase(),
            v.title(),
            f" {v} ",
            v + "é",
            v + "!",
            v.replace(" ", "  "),
            v.replace(" ", "_"),
            v.replace(" ", "-"),
            v.replace(" ", ". "),
            v + " 42",
            "-" + v,
            v[:1],
        )
    yield from dictionary.get(type(v), [])


def _sequence_mutations(v: list | tuple, dictionary: dict[type, list]) -> Iterator[object]:
    kind = type(v)
    items = list(v)
    yield kind([])
    if items:
        yield kind(items[:1])
        yield kind(items + items)
        yield kind(items[::-1])
        yield kind(items[:-1])
        yield kind(items + items[:1])
        yield kind(items[:1] + items)
        try:
            yield kind(sorted(items))
        except TypeError:
            pass
        for i, item in enumerate(items):
            for m in mutations(item, dictionary):
                yield kind(items[:i] + [m] + items[i + 1 :])


def _record(v: object) -> bool:
    """A tuple of mixed types (`("ann", 3)`) is a record: its fields change, its shape does not."""
    return isinstance(v, tuple) and len({type(x) for x in v}) > 1


def mutations(v: object, dictionary: dict[type, list]) -> Iterator[object]:
    """Values near `v`, one change each (of a built argument: of its arguments)."""
    built = as_built(v)
    if built is not None:
        kwargs = built["kwargs"]
        flat = built["args"] + tuple(kwargs.values())
        # Numbers no larger than the suite's own (or _BUILT_NUMBER): `complete_graph(10**6)` is a
        # time-out on every program, and past three the rest of a probe's batch goes unjudged.
        bound = max([_BUILT_NUMBER, *(abs(x) for x in _numbers(flat))])
        n = len(built["args"])
        for changed in _arg_mutations(flat, dictionary):
            if all(abs(x) <= bound for x in _numbers(changed)):
                yield built.with_args(changed[:n], dict(zip(kwargs, changed[n:])))
    elif isinstance(v, tuple) and _record(v):
        for i, item in enumerate(v):
            for m in mutations(item, dictionary):
                yield v[:i] + (m,) + v[i + 1 :]
    elif isinstance(v, (list, tuple)):
        yield from _sequence_mutations(v, dictionary)
    elif isinstance(v, dict):
        yield {}
        for k in list(v)[:4]:
            yield {kk: vv for kk, vv in v.items() if kk != k}
    else:
        yield from _scalar_mutations(v, dictionary)


_BUILT_NUMBER = 10


def _numbers(v: object) -> Iterator[int | float]:
    """The numbers in a literal value, nested ones included."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        yield v
    elif isinstance(v, (list, tuple, set)):
        for x in v:
            yield from _numbers(x)
    elif isinstance(v, dict):
        for x in (*v.keys(), *v.values()):
            yield from _numbers(x)


def _arg_mutations(args: tuple, dictionary: dict[type, list]) -> Iterator[tuple]:
    for i, a in enumerate(args):
        for m in mutations(a, dictionary):
            yield args[:i] + (m,) + args[i + 1 :]


def program_literals(initial: Path, limit: int = 40) -> dict[type, list]:
    """Strings and numbers written in the initial program's Python files, by type."""
    found: dict[type, list] = {str: [], int: []}
    for path in sorted(initial.rglob("*.py"))[:50]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant):
                continue  # docstrings
            if isinstance(node, ast.Constant) and type(node.value) in found:
                v = node.value
                if (isinstance(v, str) and 0 < len(v) <= 20 and "\n" not in v) or isinstance(v, int):
                    if v not in found[type(v)] and len(found[type(v)]) < limit:
                        found[type(v)].append(v)
    return found


def _random_like(v: object, rng: random.Random, dictionary: dict[type, list], depth: int = 0) -> object:
    if isinstance(v, bool):
        return rng.random() < 0.5
    if isinstance(v, int):
        pool = dictionary.get(int) or []
        return rng.choice(pool) + rng.randint(-2, 2) if pool and rng.random() < 0.4 else rng.randint(-12, 12)
    if isinstance(v, float):
        return round(rng.uniform(-10, 10), 1)
    if isinstance(v, str):
        pool = dictionary.get(str) or []
        if pool and rng.random() < 0.5:
            return rng.choice(pool)
        alphabet = "ab AB1_-.!é"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
    if isinstance(v, (list, tuple)) and depth < 3:
        if isinstance(v, tuple) and v:  # a record: keep its shape
            return tuple(_random_like(x, rng, dictionary, depth + 1) for x in v)
        proto = list(v) or [0]
        out = [_random_like(rng.choice(proto), rng, dictionary, depth + 1) for _ in range(rng.randint(0, 5))]
        if out and rng.random() < 0.5:
            out.append(rng.choice(out))  # repeats matter to many functions
        return type(v)(out)
    return v


def shape(v: object) -> object:
    """The type skeleton of a value, signs included: inputs of a seed's shape come first (a
    witness outside what the suite already passes, e.g. a negative duration, is a weaker one)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return (type(v).__name__, v >= 0)
    if isinstance(v, tuple) and _record(v):
        return ("record", tuple(shape(x) for x in v))
    if isinstance(v, (list, tuple, set)):
        return (type(v).__name__, frozenset(shape(x) for x in v))
    built = as_built(v)
    if built is not None:
        return ("built", built[MARK], shape(built["args"]), shape(built["kwargs"]))
    if isinstance(v, dict):
        return ("dict", frozenset(shape(x) for x in v), frozenset(shape(x) for x in v.values()))
    return type(v).__name__


def _fits(args: tuple, shapes: list[object]) -> bool:
    """`args` has the shape of some seed (an empty container fits any of its kind; fewer kinds of
    items than the seed is fine)."""
    mine = shape(args)

    def fits(a, b) -> bool:
        if a == b:
            return True
        if isinstance(a, tuple) and isinstance(b, tuple) and a and b and a[0] == b[0]:
            if a[0] == "record" or a[0] == "tuple" and len(a[1]) == len(b[1]) and not isinstance(a[1], frozenset):
                return len(a[1]) == len(b[1]) and all(fits(x, y) for x, y in zip(a[1], b[1]))
            if isinstance(a[1], frozenset) and isinstance(b[1], frozenset):
                return all(any(fits(x, y) for y in b[1]) for x in a[1])
        return False

    return any(fits(mine, s) for s in shapes)


def _round_robin(streams: list[Iterator]) -> Iterator:
    """One item of each stream in turn: a cut stream then holds every seed's nearest mutations,
    not all of the first seed's."""
    while streams:
        alive = []
        for stream in streams:
            item = next(stream, _END)
            if item is not _END:
                alive.append(stream)
                yield item
        streams = alive


_END = object()


def generate(
    seeds: Iterable[tuple],
    dictionary: dict[type, list],
    *,
    limit: int = MAX_INPUTS,
    randoms: int = 80,
    seed: int = 0,
    extra: Iterable[tuple] = (),
) -> list[tuple]:
    """Seeds, then mutations (two rounds), then random inputs of the seeds' shape and `extra`
    inputs (Hypothesis examples); deduplicated, bounded and smallest first. Memory and time are
    bounded by `limit` whatever the seeds hold (each round is a stream cut at `ROUND_FACTOR * limit`)."""
    seen: dict[str, tuple] = {}

    def add(args: tuple) -> None:
        text = repr(args)
        if len(text) <= _MAX_LEN and text not in seen and round_trips(args):
            seen[text] = args

    seeds = list(seeds)[:limit]
    for s in seeds:
        add(s)
    cap = limit * ROUND_FACTOR
    first = list(itertools.islice((m for s in seeds for m in _arg_mutations(s, dictionary)), cap + 1))
    if len(first) > cap:  # cut: take every seed's nearest mutations, not all of the first seed's
        first = list(itertools.islice(_round_robin([_arg_mutations(s, dictionary) for s in seeds]), cap))
    for m in first:
        add(m)
    rng = random.Random(seed)
    product = (m for f in first for m in _arg_mutations(f, dictionary))
    second = list(itertools.islice(product, SECOND_POOL))
    if next(product, _END) is _END:
        rng.shuffle(second)  # the whole second round fits: a uniform draw from all of it
        second = second[:cap]
    else:
        # Too many to hold (a 20-item list's is ~10^6): an even share of each first-round input's own
        # mutations, parents in a seeded order, so every kind of first change gets its second one.
        parents = rng.sample(first, len(first))
        share = max(1, cap // max(1, len(parents)))
        second = list(
            itertools.islice((m for f in parents for m in itertools.islice(_arg_mutations(f, dictionary), share)), cap)
        )
        rng.shuffle(second)
    for m in second:
        add(m)
    del first, second, product
    drawn: dict[str, tuple] = {}
    randomly = (
        [tuple(_random_like(a, rng, dictionary) for a in rng.choice(seeds)) for _ in range(randoms)] if seeds else []
    )
    for args in itertools.islice(itertools.chain(randomly, extra), randoms + limit):
        if isinstance(args, tuple) and repr(args) not in seen and len(repr(args)) <= _MAX_LEN and round_trips(args):
            drawn[repr(args)] = args
    shapes = [shape(s) for s in seeds]

    def order(a: tuple) -> tuple:
        return (not _fits(a, shapes), len(repr(a)), repr(a))

    keep = sorted(seen.values(), key=order)
    own = {repr(s) for s in seeds}
    # Seeds always stay (the suite's own inputs), the rest fill up to the limit: seed-shaped
    # inputs first, smallest first.
    # Random inputs keep their own share: they reach what no few mutations of a seed do.
    rest = [a for a in keep if repr(a) not in own][: max(0, limit - len(own) - len(drawn))]
    return sorted([a for a in keep if repr(a) in own] + rest + list(drawn.values()), key=order)

"""Arguments the program builds: a call of its own API with literal arguments, made in the sandbox.

A repository's tests pass objects no literal makes (`G = nx.path_graph(4)` then
`nx.spring_layout(G, fixed=[0])`). Such an argument is read from the suite as a `Built`: the
function (`networkx:path_graph`), the suite's name for it (`nx.path_graph`) and its literal
arguments. It travels to the probe as a plain dict literal of exactly `KEYS`; the runner
(`_prism_probe`) calls the function there, inside the sandbox, before the entry point: the host
never evaluates it. Its arguments are literals only (one level: no `Built` inside a `Built`), so
the search mutates them as any other (`nx.path_graph(0)`), and a witness shows the call as the
suite writes it.
"""

from __future__ import annotations

from collections.abc import Callable

MARK = "__prism_built__"
KEYS = frozenset({MARK, "name", "args", "kwargs"})


class Built(dict):
    """A built argument: a dict of `KEYS` (so its repr is a literal that reads back equal)."""

    def __init__(self, target: str, name: str, args: tuple = (), kwargs: dict | None = None) -> None:
        super().__init__({MARK: target, "name": name, "args": args, "kwargs": dict(kwargs or {})})

    def with_args(self, args: tuple, kwargs: dict) -> Built:
        return Built(self[MARK], self["name"], args, kwargs)


def as_built(value: object) -> Built | None:
    """`value` as a `Built` when it is one (or the plain dict a literal reads back as)."""
    if not isinstance(value, dict) or set(value) != KEYS:
        return None
    target, name, args, kwargs = value[MARK], value["name"], value["args"], value["kwargs"]
    if not (isinstance(target, str) and isinstance(name, str) and isinstance(args, tuple)):
        return None
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        return None
    return value if isinstance(value, Built) else Built(target, name, args, kwargs)


def built_text(value: Built, show: Callable[[object], str]) -> str:
    """The call as the suite writes it: `nx.path_graph(4)`."""
    parts = [show(a) for a in value["args"]] + [f"{k}={show(v)}" for k, v in value["kwargs"].items()]
    return f"{value['name']}({', '.join(parts)})"

"""Where a fix is mutated: its changed lines, widened to the innermost enclosing function's body
when they give fewer than `MIN_CHANGED_MUTANTS` mutants, and never past it."""

from __future__ import annotations

import textwrap

import pytest

from prism_lsp.panel.mutate import sites_of
from prism_lsp.panel.sites import MIN_CHANGED_MUTANTS, find_sites

SOURCE = textwrap.dedent("""\
    LIMIT = 10


    def clamp(x, low, high):
        if x < low:
            return low
        return min(x, high)


    class Box:
        def size(self, items):
            total = 0
            for item in items:
                total += item.weight
            return total

        @staticmethod
        def pack(
            items,
        ):
            def weight(item):
                base = item.weight
                return base * 2

            return sorted(items, key=weight)
""")


def _line(text: str, source: str = SOURCE) -> int:
    """The (1-based) line of `source` starting with `text` (indentation aside): one line only."""
    (n,) = [i for i, line in enumerate(source.splitlines(), 1) if line.strip().startswith(text)]
    return n


def _span(first: str, last: str) -> range:
    return range(_line(first), _line(last) + 1)


CLAMP = _span("def clamp", "return min(x, high)")
SIZE = _span("def size", "return total")
WEIGHT = _span("def weight", "return base * 2")
PACK = _span("@staticmethod", "return sorted(items")
# `return low` offers 3 mutants (`return x`, `return high`, the statement dropped): one of them is
# `INITIAL`, the program before a fix that changed that line: the fix itself, undone, does not count.
INITIAL = SOURCE.replace("        return low\n", "        return x\n")


@pytest.mark.parametrize(
    ("changed", "initial", "widened_to", "inside"),
    [
        # One mutant (the statement dropped) on the changed line: widened to its method, nowhere else.
        ("total += item.weight", None, ["Box.size"], SIZE),
        # Enough mutants on the changed line: the changed line only.
        ("return min(x, high)", None, [], None),
        ("return low", None, [], None),
        # The same line, after a fix from `return x`: two mutants left, so widened to clamp.
        ("return low", INITIAL, ["clamp"], CLAMP),
        # Module level, two mutants (10 ± 1), in no function: nothing to widen to.
        ("LIMIT = 10", None, [], None),
        # A changed signature widens to its function's body (decorator and nested function included).
        ("items,", None, ["Box.pack"], PACK),
        # A nested function is the innermost: its enclosing function's other lines stay out.
        ("base = item.weight", None, ["Box.pack.weight"], WEIGHT),
    ],
)
def test_the_changed_lines_widen_to_their_function_only_when_they_give_too_few_mutants(
    changed, initial, widened_to, inside
):
    lines = [_line(changed)]
    found = find_sites({"m.py": SOURCE}, {"m.py": lines}, {"m.py": initial})
    site_lines = [chunk.first + site.line - 1 for _, chunk, site in found.widened]
    # The changed line's own sites come first and are exactly those of the strict scope.
    assert [(c, s) for _, c, s in found.changed] == sites_of(SOURCE, lines)
    assert [b.name for bodies in found.bodies.values() for b in bodies] == widened_to
    if not widened_to:
        assert found.widened == [] and found.all == found.changed
        return
    assert found.changed_mutants < MIN_CHANGED_MUTANTS
    # Inside the innermost function's body (for `Box.size`, not in `Box.pack`, in the same class).
    assert site_lines and all(n in inside and n not in lines for n in site_lines)


def test_widened_sites_are_capped_nearest_the_change_first():
    lines = [_line("return low")]
    every = find_sites({"m.py": SOURCE}, {"m.py": lines}, {"m.py": INITIAL})
    capped = find_sites({"m.py": SOURCE}, {"m.py": lines}, {"m.py": INITIAL}, cap=2)
    distance = [abs(c.first + s.line - 1 - lines[0]) for _, c, s in every.widened]
    assert distance == sorted(distance) and len(every.widened) > 2
    assert capped.widened == every.widened[:2]


def test_the_strict_scope_never_widens():
    lines = [_line("total += item.weight")]
    found = find_sites({"m.py": SOURCE}, {"m.py": lines}, widen=False)
    assert found.widened == [] and [(c, s) for _, c, s in found.changed] == sites_of(SOURCE, lines)


def test_the_minimum_counts_the_mutants_of_every_changed_file():
    # One mutant in each of three files: three in all, so none of them widens.
    texts = {f"{name}.py": SOURCE for name in ("a", "b", "c")}
    line = _line("total += item.weight")
    assert find_sites(texts, {rel: [line] for rel in texts}).widened == []
    assert find_sites(texts, {"a.py": [line], "b.py": [line]}).bodies.keys() == {"a.py", "b.py"}

"""Mutants of the reference: each operator of the taxonomy, deterministic, compiling, one change each;
and the AST diversity measure."""

import textwrap

from prism_lsp.panel.diffs import file_diff
from prism_lsp.panel.diversity import features, jaccard_distance, mean_pairwise_distance
from prism_lsp.panel.mutate import mutants_of

SOURCE = textwrap.dedent('''\
    def f(items, low, k):
        """Docstring stays."""
        out = []
        for x in sorted(set(items)):
            if x >= low and x != 3:
                out.append(x.strip().lower() if isinstance(x, str) else x + 1)
            else:
                out.append(0)
        return pow(out[1:k], 2)
''')


def test_every_operator_of_the_taxonomy_appears():
    mutants = mutants_of("m.py", SOURCE)
    ops = {m.operator for m in mutants}
    assert ops >= {
        "boundary",
        "comparison",
        "constant",
        "and-or",
        "negate-condition",
        "drop-condition",
        "drop-branch",
        "drop-statement",
        "swap-arguments",
        "slice",
        "drop-call",
        "return-neighbour",
    }
    changes = {m.description for m in mutants}
    assert "boundary: `x >= low` -> `x > low`" in changes
    assert "comparison: `x != 3` -> `x == 3`" in changes
    assert "and-or: `x >= low and x != 3` -> `x >= low or x != 3`" in changes
    assert "drop-call: `sorted(set(items))` -> `set(items)`" in changes
    assert "drop-call: `x.strip()` -> `x`" in changes
    assert "swap-arguments: `pow(out[1:k], 2)` -> `pow(2, out[1:k])`" in changes
    assert "slice: `out[1:k]` -> `out[1:k + 1]`" in changes
    assert "return-neighbour: `return pow(out[1:k], 2)` -> `return out`" in changes


def test_mutants_compile_differ_and_are_deterministic():
    first = mutants_of("m.py", SOURCE)
    assert first == mutants_of("m.py", SOURCE)
    texts = [m.source for m in first]
    assert len(set(texts)) == len(texts) and SOURCE not in texts
    for m in first:
        compile(m.source, "m.py", "exec")
        assert '"""Docstring stays."""' in m.source
        # one place changed: the diff has a single hunk
        assert file_diff("m.py", SOURCE, m.source).count("@@ -") == 1


def test_a_dropped_only_statement_leaves_pass():
    src = "def g(x):\n    if x:\n        x.sort()\n    return x\n"
    dropped = [m for m in mutants_of("g.py", src) if m.operator == "drop-statement" and m.line == 3]
    assert dropped and "        pass\n" in dropped[0].source


def test_unparsable_source_gives_no_mutants():
    assert mutants_of("bad.py", "def (:\n") == []


def test_diversity_ignores_names_and_sees_algorithms():
    a = features("def f(x):\n    return sorted(x)\n")
    renamed = features("def g(values):\n    return sorted(values)\n")
    loop = features("def f(x):\n    out = []\n    for v in x:\n        out.append(v)\n    return out\n")
    assert jaccard_distance(a, renamed) == 0
    assert jaccard_distance(a, loop) > 0.5
    assert mean_pairwise_distance([a]) is None
    assert mean_pairwise_distance([a, renamed, loop]) == (0 + 2 * jaccard_distance(a, loop)) / 3


def test_diversity_rule_warns_below_one_half():
    from prism_lsp.panel.fitness import diversity_rule

    assert diversity_rule(None).status == "skipped"
    assert diversity_rule(0.49).status == "warning" and "0.49" in diversity_rule(0.49).detail
    assert diversity_rule(0.5).status == "ok"

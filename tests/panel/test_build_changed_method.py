"""A fix in a method the suite reaches only through objects no literal makes gets witness-proven
mutants: the build calls the changed method on an instance made as the suite makes one, with values
of every kind (issue 22: marshmallow's `Boolean._serialize`, reached through `Schema.dump` on a
schema class the test defines, kept none: the search never called it); a fix in a protocol method
(`__reversed__`) too: the probes observe the instances an entry point returns through their
protocol, the changed method's operations first (more-itertools' `numeric_range.__reversed__` fix
kept none, every mutant unjudged at the budget)."""

import pytest

from prism_lsp.panel.build import BuildOptions, build_panel
from prism_lsp.tasks import load_task
from prism_lsp.witness.changed import method_entries, palette_args
from prism_lsp.witness.entry import Entry
from prism_lsp.witness.seeds import SuiteCall
from tests.conftest import write_task
from tests.witness.test_instance_protocol import SPAN
from tests.witness.test_instance_protocol import SUITE as SPAN_SUITE

FLAG = """\
class Flag:
    TRUE = {{"yes", "on", 1}}

    def dump(self, record):
        return self._render(record.value)

    def _render(self, value):
{body}
        return "yes" if value else "no"
"""
UNHASHABLE_FAILS = '        if value in self.TRUE:\n            return "yes"\n'
FIXED = '        try:\n            if value in self.TRUE:\n                return "yes"\n        except TypeError:\n            pass\n'
SUITE = """\
from flag import Flag


class Record:
    def __init__(self, value):
        self.value = value


def test_flag():
    flag = Flag()
    assert flag.dump(Record("on")) == "yes"
"""


def _kept_witness_calls(tmp_path, engine, module: str, initial: str, fixed: str, suite: str) -> list[str]:
    """Build the panel of a one-module fix; the witness call of every kept mutant (each one told apart)."""
    root = write_task(
        tmp_path / "task",
        initial={module: initial},
        candidates=[{"id": "reference", "reference": True, "files": {module: fixed}}],
        extra_task='sandbox = "bubblewrap"',
        suites={f"initial/test_{module}": suite},
    )
    result = build_panel(engine, load_task(root), BuildOptions(mutate="changed", sandbox="bubblewrap", budget_s=60))
    assert result.kept, result.dropped
    for k in result.kept:
        assert k.witness.expected != next(iter(k.witness.got.values()))
    return [k.witness.call for k in result.kept]


@pytest.mark.parametrize(
    ("module", "initial", "fixed", "suite", "call"),
    [
        # marshmallow's `Boolean._serialize`: the build calls the changed method directly
        ("flag.py", FLAG.format(body=UNHASHABLE_FAILS), FLAG.format(body=FIXED), SUITE, "Flag()._render("),
        # more-itertools' `numeric_range.__reversed__`: the probe observes the instance through `reversed()`
        (
            "span.py",
            SPAN.format(low="self.start"),
            SPAN.format(low="self.start - 1"),
            SPAN_SUITE,
            "list(reversed(Span(",
        ),
    ],
    ids=["changed-method", "protocol-method"],
)
def test_a_fix_no_literal_call_of_the_suite_reaches_gets_witness_proven_mutants(
    tmp_path, engine, module, initial, fixed, suite, call
):
    calls = _kept_witness_calls(tmp_path, engine, module, initial, fixed, suite)
    assert all(c.startswith(call) for c in calls), calls


CLASS = Entry("pkg.m", "Box", ("Box",))
MADE = [SuiteCall(CLASS.spec, "Box", (), 3, "Box()", "test_a"), SuiteCall(CLASS.spec, "Box", (1,), 4, "Box(1)", "t")]


@pytest.mark.parametrize(
    ("arities", "specs"),
    [
        ({"Box._render": 1}, ["pkg.m:Box._render(init=0;1)", "pkg.m:Box._render(init=1;1)"]),
        ({"Box.__len__": 0, "Box.open": 9}, []),  # a protocol method is observed, not called; too many arguments
        ({"Other._render": 1}, []),  # a class the suite never constructs
    ],
    ids=["constructed", "left-out", "not-constructed"],
)
def test_changed_methods_become_entries_on_the_suites_constructions(arities, specs):
    entries, calls = method_entries([CLASS], MADE, arities, lambda e: True)
    assert [e.spec for e in entries] == specs
    assert {c.entry for c in calls} == set(specs)
    for c in calls:  # the construction's own arguments, then the method's one
        assert c.via is not None and c.via.form is not None and c.via.form.init is not None
        made = c.via.form.init[0]
        assert c.args[:made] == MADE[made].args and len(c.args) == made + 1


def test_the_palette_varies_one_argument_at_a_time():
    args = palette_args(2)
    assert args[0] == (None, None) and ([], None) in args and (None, {"a": 1}) in args
    assert all(sum(a is not None for a in pair) <= 1 for pair in args)
    assert palette_args(0) == [()]  # a method of no argument is called once

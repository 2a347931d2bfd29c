"""A call that returns an instance of the program's own class is observed through what the instance
does (`list(reversed(x))`, `len(x)`, `x[0]`, `v in x`...), so a bug only a protocol method shows is
told apart (issue 22: more-itertools' `numeric_range.__reversed__`, whose mutants no probe judged)."""

import ast
import sys
from pathlib import Path

import pytest

from prism_lsp.tasks import load_task
from prism_lsp.witness import Prober, programs_of, search_panel
from tests.conftest import write_task

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "prism_lsp" / "runner"))
import _prism_instance as instance  # noqa: E402  (the runner's module, stdlib only)

SPAN = """\
class Span:
    \"\"\"The integers start, start + 1, ..., stop - 1.\"\"\"

    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return max(0, self.stop - self.start)

    def __reversed__(self):
        return iter(range(self.stop - 1, {low}, -1))
"""
REFERENCE = SPAN.format(low="self.start - 1")
SUITE = "from span import Span\n\n\ndef test_span():\n    assert list(Span(1, 4)) == [1, 2, 3]\n"


def _span_task(tmp_path):
    root = write_task(
        tmp_path / "task",
        initial={"span.py": SPAN.format(low="self.start")},  # reversed() loses the first item
        candidates=[
            {"id": "reference", "reference": True, "files": {"span.py": REFERENCE}},
            {"id": "from-stop", "label": "invalid", "files": {"span.py": REFERENCE.replace("stop - 1,", "stop,")}},
        ],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_span.py": SUITE},
    )
    return load_task(root)


def test_a_bug_only_reversed_shows_gets_a_reversed_witness(tmp_path, engine):
    """`Span(...)`'s repr is an address, its iteration and length are right: only `reversed()` on
    the instance tells the initial program and the invalid candidate apart, as the suite writes it."""
    found = search_panel(engine, _span_task(tmp_path), SUITE)
    reference: dict = {}
    exec(REFERENCE, reference)  # the test's own class: the expected value, computed here
    for pid in ("initial", "from-stop"):
        w = found.result.witnesses[pid]
        assert w.kind == "value" and w.call.startswith("list(reversed(Span(")
        assert eval(w.call, reference) == ast.literal_eval(w.expected)
        assert next(iter(w.got.values())) != w.expected


BOX = "class Box:\n    def __init__(self, v):\n        self.v = v\n\n    def get(self):\n        return self.v\n"


def test_an_instance_without_protocol_methods_is_observed_as_before(tmp_path, engine):
    root = write_task(
        tmp_path / "task",
        initial={"box.py": BOX},
        candidates=[{"id": "reference", "reference": True, "files": {"box.py": BOX}}],
        extra_task='sandbox = "bubblewrap"',
    )
    task = load_task(root)
    (program,) = [p for p in programs_of(task, engine.cache) if p.id == "reference"]
    b, listed = Prober(engine.pool_for(task)).probe([program], "box:Box", ["(1,)", "([1, 2],)"])["reference"]
    assert (b.type, b.exception, b.error, b.protocol) == ("Box", None, None, ())
    assert b.value is not None and b.value.startswith("<box.Box object at 0x")
    assert listed.protocol == ()


class _Plain:
    pass


class _Seq:
    def __init__(self, items):
        self.items = list(items)

    def __repr__(self):
        return f"_Seq({self.items!r})"

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __contains__(self, v):
        return v in self.items

    def __reversed__(self):
        return reversed(self.items)


class _Addressed:
    def __repr__(self):
        return f"<_Addressed at {id(self):#x}>"


class _Endless:
    def __iter__(self):
        n = 0
        while True:
            yield n
            n += 1


def _observed(value, args=(), focus=()):
    rows, cut = instance.observe(value, args, focus, 2000, lambda e: type(e).__name__, TimeoutError)
    assert not cut
    return [(r["op"], r["value"], r["exception"], r["error"]) for r in rows]


@pytest.mark.parametrize(
    ("value", "args", "focus", "expected"),
    [
        (_Plain(), (), (), []),
        (
            _Seq([]),
            (0, "x", [1]),  # only scalars are tried with `in`
            (),
            [
                ("repr", "'_Seq([])'", None, None),
                ("len", "0", None, None),
                ("bool", "False", None, None),
                ("first", None, "IndexError", None),
                ("last", None, "IndexError", None),
                ("in:0", "False", None, None),
                ("in:1", "False", None, None),
                ("reversed", "[]", None, None),
                ("iter", "[]", None, None),
            ],
        ),
        (
            _Seq([3, 4]),
            (3,),
            ("__reversed__",),  # the changed method's op first
            [
                ("reversed", "[4, 3]", None, None),
                ("repr", "'_Seq([3, 4])'", None, None),
                ("len", "2", None, None),
                ("bool", "True", None, None),
                ("first", "3", None, None),
                ("last", "4", None, None),
                ("in:0", "True", None, None),
                ("iter", "[3, 4]", None, None),
            ],
        ),
        (_Addressed(), (), (), [("repr", None, None, "address")]),
        (_Endless(), (), (), [("iter", None, None, "item-limit")]),
    ],
    ids=["no-protocol", "empty-sequence", "focus-first", "address", "endless"],
)
def test_observations_of_an_instance(value, args, focus, expected):
    assert _observed(value, args, focus) == expected

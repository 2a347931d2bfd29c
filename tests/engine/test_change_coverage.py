"""ΔC and entry coverage on the reference's run, pinned against lines counted by hand.

Real runner in the real sandbox on the fixtures' reference; suites written for the count. A line
counts when a statement inside a function starts on it (no `def`, no docstring): the reference of
`cart-total` changes `shop/cart.py` lines 6, 8, 9, 10 (5 is the docstring) and `shop/pricing.py`
lines 13, 14 — six executable changed lines; `cart_total` spans lines 6-13, eight executable lines.
"""

from __future__ import annotations

from prism_lsp.engine.session import RunOptions
from prism_lsp.judge.report import build_report
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES, write_task
from tests.engine.coverage_suites import CART_SUITE

# top-tags' reference: lines 5-9 of tags.py changed (all executable), `top_tags` spans 3-9.
TAGS_SUITE = """\
import pytest

from tags import top_tags


def test_none():
    assert top_tags([], 1) == []


@pytest.mark.parametrize("posts", [[","], [" ,"]])
def test_blank_tags_only(posts):
    assert top_tags(posts, 1) == []
"""


def _run(engine, task_name: str, text: str):
    task = load_task(FIXTURES / task_name)
    suite = Suite("test_counted.py", text)
    return task, suite, engine.run(task, suite, RunOptions(confirm=False))


def test_cart_total_counts_the_changed_and_entry_lines_each_test_runs(engine):
    task, suite, run = _run(engine, "cart-total", CART_SUITE)
    report = build_report(task, suite, run)
    dc, entry = report.change_coverage, report.entry_coverage
    assert dc is not None and entry is not None
    # test_empty: an empty cart runs 6 and 9 and both loop headers (7 unchanged, 10 changed)
    # test_one: one item of two, below the bulk quantity: everything but the discount's return
    assert (dc.reached, dc.total, dc.ratio) == (5, 6, 0.8333)
    assert dc.tests == {"test_empty": 3, "test_one": 5}
    assert dc.lines == {"shop/cart.py": [6, 8, 9, 10], "shop/pricing.py": [13]}
    assert dc.missed == {"shop/pricing.py": [14]}
    assert (entry.reached, entry.total, entry.ratio) == (8, 8, 1.0)
    assert entry.tests == {"test_empty": 5, "test_one": 8}
    assert entry.missed == {}


def test_top_tags_counts_a_parametrized_test_once_and_misses_the_count_line(engine):
    task, suite, run = _run(engine, "top-tags", TAGS_SUITE)
    report = build_report(task, suite, run)
    dc, entry = report.change_coverage, report.entry_coverage
    assert dc is not None and entry is not None
    # No post: 8, 9. Blank tags: the inner loop (5) and its `if` (6) run, the count (7) never.
    assert (dc.reached, dc.total) == (4, 5)
    assert dc.tests == {"test_none": 2, "test_blank_tags_only": 4}
    assert dc.missed == {"tags.py": [7]}
    assert (entry.reached, entry.total) == (6, 7)
    assert entry.tests == {"test_none": 4, "test_blank_tags_only": 6}


def test_reveal_levels_show_lines_at_full_numbers_below_and_nothing_sealed(engine):
    task, suite, run = _run(engine, "cart-total", CART_SUITE)
    at = {level: build_report(task, suite, run, reveal=level) for level in ("full", "labels", "counts", "sealed")}
    assert at["full"].change_coverage.lines and at["full"].change_coverage.missed
    labels = at["labels"].change_coverage
    assert (labels.reached, labels.total) == (5, 6) and labels.tests == {"test_empty": 3, "test_one": 5}
    assert labels.lines == {} and labels.missed == {}
    counts = at["counts"].change_coverage.model_dump()
    assert counts == {"reached": 5, "total": 6, "ratio": 0.8333, "tests": {}, "lines": {}, "missed": {}}
    assert at["counts"].entry_coverage.model_dump()["tests"] == {}
    assert at["sealed"].change_coverage is None and at["sealed"].entry_coverage is None
    dumped = at["sealed"].model_dump_json()
    assert "shop/pricing.py" not in dumped


FORGED = "{'shop/secret.py': [1, 2, 3], 'shop/cart.py': [6, 7, 11, 12, 13, 99]}"


def test_a_suite_that_forges_its_coverage_counts_only_the_reference_lines(engine):
    """The suite runs in the reference's process and can write its own `covered`: the host keeps only
    lines it computed from the reference's files (no new file, no line outside them)."""
    text = f"""\
from shop.cart import cart_total


def test_forges(request):
    assert cart_total([]) == 0
    collector = next(p for p in request.config.pluginmanager.get_plugins() if type(p).__name__ == "Collector")
    for rel, lines in {FORGED}.items():
        index = collector.measured_file(rel, set())
        for line in lines:
            collector.probe(line, index)
"""
    task, suite, run = _run(engine, "cart-total", text)
    report = build_report(task, suite, run)
    dc = report.change_coverage
    assert (dc.reached, dc.total) == (3, 6)
    assert set(dc.lines) <= {"shop/cart.py", "shop/pricing.py"}
    entry = report.entry_coverage
    # An empty cart runs 6, 7, 9, 10, 13; the forged 11 and 12 are cart_total's, 99 and secret.py are not.
    assert (entry.reached, entry.total) == (7, 8)
    assert entry.lines == {"shop/cart.py": [6, 7, 9, 10, 11, 12, 13]}


INITIAL = """\
def sign(x):
    if x > 0:
        return 1
    return 0
"""
# The fix changes lines 3, 4 and 5; the verifier runs 3 and 4, never 5 (no x below -100).
REFERENCE = """\
def sign(x):
    if x > 0:
        return 2
    if x < -100:
        return -5
    return 0
"""
VERIFIER = """\
from solution import sign


def test_judge():
    assert sign(1) == 2
    assert sign(-1) == 0
"""


def test_with_a_verifier_change_coverage_counts_only_the_changed_lines_it_runs(engine, tmp_path):
    root = write_task(
        tmp_path / "signs",
        initial={"solution.py": INITIAL},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": REFERENCE}}],
        extra_task='[verifier]\nsuite = "verifier/test_judge.py"\n',
        suites={"verifier/test_judge.py": VERIFIER},
    )
    task = load_task(root)
    suite = Suite("test_sign.py", "from solution import sign\n\n\ndef test_positive():\n    assert sign(5) == 2\n")
    report = build_report(task, suite, engine.run(task, suite, RunOptions(confirm=False)))
    dc = report.change_coverage
    assert (dc.reached, dc.total) == (1, 2), "line 5, which the verifier never runs, is not counted"
    assert dc.lines == {"solution.py": [3]} and dc.missed == {"solution.py": [4]}
    entry = report.entry_coverage
    assert (entry.reached, entry.total) == (2, 5), "entry coverage is the whole span: 2, 3 of 2-6"

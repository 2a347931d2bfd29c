"""A fix in a protocol method (`__reversed__`) gets witness-proven mutants: the build's probes observe
the instances its entry point returns through their protocol, the changed method's ops first (issue
22: more-itertools' `numeric_range.__reversed__` fix kept none, every mutant unjudged at the budget)."""

from prism_lsp.panel.build import BuildOptions, build_panel
from prism_lsp.tasks import load_task
from tests.conftest import write_task
from tests.witness.test_instance_protocol import SPAN, SUITE


def test_mutants_of_a_reversed_fix_are_kept_with_reversed_witnesses(tmp_path, engine):
    fixed = SPAN.format(low="self.start - 1")
    root = write_task(
        tmp_path / "task",
        initial={"span.py": SPAN.format(low="self.start")},
        candidates=[{"id": "reference", "reference": True, "files": {"span.py": fixed}}],
        extra_task='sandbox = "bubblewrap"',
        suites={"initial/test_span.py": SUITE},
    )
    result = build_panel(engine, load_task(root), BuildOptions(mutate="changed", sandbox="bubblewrap", budget_s=60))
    assert result.kept, result.dropped
    for k in result.kept:
        assert k.witness.call.startswith("list(reversed(Span("), k.witness
        assert k.witness.expected != next(iter(k.witness.got.values()))

"""`prism run` prints the suite's ΔC and entry coverage on the reference, and nothing of them sealed."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES
from tests.engine.coverage_suites import CART_SUITE
from tests.repo.gitrepo import prism


@pytest.mark.parametrize("reveal", ["full", "counts", "sealed"])
def test_run_prints_the_reference_coverage_except_sealed(tmp_path, capsys, reveal):
    task = tmp_path / "cart-total"
    shutil.copytree(FIXTURES / "cart-total", task)
    suite = task / "suites" / "test_counted.py"
    suite.write_text(CART_SUITE)
    code, out, err = prism(capsys, "run", str(task), str(suite), "--reveal", reveal, "--cache-dir", str(tmp_path / "c"))
    assert code in (0, 1), err
    line = "coverage on the reference: ΔC 5 of 6 changed lines · entry 8 of 8 lines"
    assert (line in out) == (reveal != "sealed"), out

"""Real bug-fix commits of public repositories (bench/real_repos/): `prism init --base --fix` with no
exclusions by hand, then Prism's verdicts on the initial program and the reference equal plain
pytest's, and `prism panel build` keeps mutants, each proven by a witness.

Each case clones its bundle, makes a `.venv` with pip (the network, for PyPI) and runs the real
sandbox: minutes, so these run only with PRISM_REAL_REPOS set (.ci/run sets it): `1` runs two
cases that keep 5 mutants (toolz, boltons), `all` every case of bench/real_repos/cases.toml.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import real_repos  # noqa: E402

WHICH = os.environ.get("PRISM_REAL_REPOS", "")
QUICK = ("toolz-partition-all-length", "boltons-bits-length")
CASES = [c for c in real_repos.load_cases() if WHICH == "all" or c.id in QUICK]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not WHICH, reason="real repositories: set PRISM_REAL_REPOS=1 (or all)"),
]


def test_every_case_is_a_small_bundle_of_a_fix_and_its_base():
    for case in real_repos.load_cases():
        assert case.bundle.is_file() and case.bundle.stat().st_size < 2_100_000, case.id
    assert len({c.repo for c in real_repos.load_cases()}) >= 5


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verdicts_equal_plain_pytest_and_the_panel_keeps_witnessed_mutants(case, tmp_path):
    repo = real_repos.setup(case, tmp_path)
    plain = real_repos.plain_verdicts(case, repo)
    assert plain == ("fail", "pass")  # the case is what the table says: the test fails before the fix
    assert real_repos.prism_verdicts(case, repo) == plain
    kept, _, _, log = real_repos.build(repo, budget_s=60)
    assert kept >= 3, log

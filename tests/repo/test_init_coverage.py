"""`prism init` on a real git repository whose fix changes two functions: the reference is the
author's own fix, and `prism run --json` counts ΔC and entry coverage on it.

calc.py after the fix: `add` (lines 1-4) and `scale` (lines 7-10) both changed; the suite calls
`add` only. Executable changed lines: 3, 4 (add's two returns), 8, 9, 10 (scale's body) — five;
`add(2, 3)` runs 2 and 4, so one of them. Entry point `add` (the suite's only call) has three
executable lines, 2-4, and the test runs two.
"""

from __future__ import annotations

from tests.repo.gitrepo import make_repo, prism, run_json, write

BUGGY = """\
    def add(a, b):
        if a is None:
            return a - b
        return a - b


    def scale(x, k):
        return x
"""
FIXED = """\
    def add(a, b):
        if a is None:
            return a + b
        return a + b


    def scale(x, k):
        if k == 0:
            return 0
        return x * k
"""
TEST = """\
    from calc import add


    def test_add():
        assert add(2, 3) == 5
"""


def test_init_fix_of_two_functions_counts_the_author_fix_lines_the_suite_runs(tmp_path, capsys):
    repo = make_repo(tmp_path / "repo", {"calc.py": BUGGY})
    write(repo, {"calc.py": FIXED, "test_calc.py": TEST})
    code, _out, err = prism(capsys, "init", str(repo))
    assert code == 0, err
    report = run_json(capsys, repo / "test_calc.py", "--cache-dir", str(tmp_path / "cache"))
    assert report["metrics"]["rar"], report
    dc, entry = report["change_coverage"], report["entry_coverage"]
    assert (dc["reached"], dc["total"]) == (1, 5)
    assert dc["lines"] == {"calc.py": [4]}
    assert dc["missed"] == {"calc.py": [3, 8, 9, 10]}
    assert dc["tests"] == {"test_add": 1}
    assert (entry["reached"], entry["total"]) == (2, 3)
    assert entry["missed"] == {"calc.py": [3]}

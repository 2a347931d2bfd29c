"""`prism panel build` on a repository shaped like a real one: a one-line fix in a 340-line module of
~1,000 mutation sites (src layout, the repository's own tests), its regression test calling a function
and a method of a class with keyword arguments. The build mutates only the fixed line, finds witnesses
from the suites' real calls, keeps at least three mutants within the minute, and says what it does."""

from __future__ import annotations

import json
import resource

from prism_lsp.tasks import load_task
from tests.panel import textkit_repo as r
from tests.repo.gitrepo import commit, make_repo, prism, write


def _repo(tmp_path):
    repo = make_repo(
        tmp_path / "textkit",
        {
            "pyproject.toml": r.PYPROJECT,
            "src/textkit/__init__.py": "",
            "src/textkit/inflect.py": r.INFLECT,
            "tests/test_inflect.py": r.OWN_TESTS,
        },
    )
    write(repo, {"src/textkit/inflect.py": r.FIXED, "tests/test_singular.py": r.REGRESSION})
    commit(repo, "singularize: a word ending in ss is already singular ('glass', not 'glas')")
    return repo


def test_build_on_a_one_line_fix_keeps_witnessed_mutants_of_that_line(tmp_path, capsys, cache_dir):
    repo = _repo(tmp_path)
    code, out, err = prism(capsys, "init", str(repo), "--base", "HEAD~1", "--fix", "HEAD")
    assert code == 0, err
    code, out, err = prism(
        capsys, "panel", "build", str(repo), "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)
    )
    assert code == 0, err + out
    data = json.loads(out)
    fixed_line = r.FIXED.splitlines().index(r.FIX_LINE.rstrip("\n")) + 1
    # Only the fixed line is mutated: a few dozen sites, not the file's ~1,000.
    assert 0 < data["sites"] < 40, data
    assert len(data["kept"]) >= 3, data
    assert all(k["file"] == "src/textkit/inflect.py" and k["line"] == fixed_line for k in data["kept"])
    calls = {k["witness"]["call"] for k in data["kept"]}
    assert all(c.startswith(("singularize(", "Inflector(")) for c in calls), calls
    # e.g. the negated condition: `singularize('glass')` is 'glass' for the fix, 'glas' for the mutant.
    negated = [k for k in data["kept"] if k["operator"] == "negate-condition"]
    assert negated and negated[0]["witness"]["got"] != negated[0]["witness"]["expected"]
    assert data["seconds"] < 60 and not data["notes"], data
    # It said what it was doing while it did it (stderr: the JSON stays one document).
    assert "mutation sites on the lines the fix changed of src/textkit/inflect.py" in err
    assert "batch 1: " in err and " kept, dropped: " in err
    # Bounded memory in the host process (the runners are separate processes).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 1 << 20  # KiB: 1 GiB
    task = load_task(repo)
    mutants = [c for c in task.candidates if c.origin == "mutant"]
    assert len(mutants) == len(data["kept"]) and all(not c.valid for c in mutants)


def test_the_time_budget_stops_a_build_of_the_whole_file_with_a_note(tmp_path, capsys, cache_dir):
    repo = _repo(tmp_path)
    assert prism(capsys, "init", str(repo), "--base", "HEAD~1", "--fix", "HEAD")[0] == 0
    code, out, err = prism(
        capsys,
        "panel",
        "build",
        str(repo),
        "--json",
        "--sandbox",
        "bubblewrap",
        "--cache-dir",
        str(cache_dir),
        "--mutate",
        "all",
        "--budget-s",
        "1",
        "--max-invalid",
        "30",
    )
    data = json.loads(out)
    # The whole file's ~1,000 sites are counted, one batch of them is judged, then the budget stops it.
    assert data["sites"] > 900 and data["tried"] == 40, data
    assert any("time budget (1 s)" in n and "--budget-s" in n for n in data["notes"]), data["notes"]
    assert err.count("batch ") == 1
    assert code in (0, 1)

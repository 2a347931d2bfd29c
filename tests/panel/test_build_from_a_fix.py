"""`prism panel build` on a task made by `prism init` from a real fix: mutants only where the fix
changed the code (where the bug was) — widened to its function when that gives too few, unless
`--mutate changed` — and `--from-samples` labels alternative fixes into the panel."""

from __future__ import annotations

import json
import textwrap

from prism_lsp.tasks import load_task
from tests.repo.gitrepo import make_repo, prism, write

# A module with code the bug has nothing to do with, and one function the fix changes.
BEFORE = """\
    def greet(name):
        if not name:
            return "hello"
        return "hello " + name.strip()


    def clamp(x, low, high):
        return max(low, x)
"""
AFTER = BEFORE.replace("        return max(low, x)\n", "        return max(low, min(x, high))\n")
TEST = """\
    from util import clamp


    def test_clamp_caps_at_high():
        assert clamp(15, 0, 10) == 10
        assert clamp(-3, 0, 10) == 0
        assert clamp(4, 0, 10) == 4
"""
OTHER_FIX = textwrap.dedent(AFTER).replace("max(low, min(x, high))", "max(min(high, x), low)")  # valid too
WRONG_FIX = textwrap.dedent(AFTER).replace("max(low, min(x, high))", "min(x, high)")  # forgets the low bound


def _repo(tmp_path):
    repo = make_repo(tmp_path / "repo", {"util.py": BEFORE})
    write(repo, {"util.py": AFTER, "tests/test_util.py": TEST})
    return repo


def _build(capsys, cache_dir, repo, *extra):
    code, out, err = prism(
        capsys, "panel", "build", str(repo), "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir), *extra
    )
    return code, out, err


def test_mutants_of_a_fix_stay_on_the_lines_it_changed(tmp_path, capsys, cache_dir, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    code, out, err = prism(capsys, "init")
    assert code == 0, err
    auto_code, auto_out, auto_err = _build(capsys, cache_dir, repo, "--out", str(tmp_path / "auto"))
    assert auto_code in (0, 1), auto_err
    auto = json.loads(auto_out.split("\n}\n")[0] + "\n}")
    all_code, all_out, all_err = _build(capsys, cache_dir, repo, "--mutate", "all", "--out", str(tmp_path / "all"))
    every = json.loads(all_out.split("\n}\n")[0] + "\n}")
    # The fix changed line 8 of util.py only: `auto` mutates there and nowhere in greet().
    assert auto["generated"] > 0 and all(k["file"] == "util.py" and k["line"] == 8 for k in auto["kept"])
    assert every["generated"] > auto["generated"]


def test_from_samples_labels_alternative_fixes(tmp_path, capsys, cache_dir, monkeypatch):
    repo = _repo(tmp_path)
    monkeypatch.chdir(repo)
    assert prism(capsys, "init")[0] == 0
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps({"id": "colleague", "code": OTHER_FIX, "file": "util.py"})
        + "\n"
        + json.dumps({"id": "model", "code": WRONG_FIX, "file": "util.py"})
        + "\n"
    )
    code, out, err = _build(capsys, cache_dir, repo, "--from-samples", str(samples), "--out", str(tmp_path / "task"))
    assert code in (0, 1), err + out
    task = load_task(tmp_path / "task")
    labels = {c.id: c.label for c in task.candidates if c.origin == "sample"}
    assert labels == {"colleague": "valid", "model": "invalid"}
    assert any(c.origin == "mutant" for c in task.candidates)


# A one-line fix with a single mutant on its line (the statement dropped): too few for a panel.
CAP_BEFORE = BEFORE.replace(
    "        return max(low, x)\n", "        if x > high:\n            x = low\n        return max(low, x)\n"
)
CAP_AFTER = CAP_BEFORE.replace("            x = low\n", "            x = high\n")


def test_a_fix_with_too_few_mutants_on_its_lines_widens_to_its_function(tmp_path, capsys, cache_dir, monkeypatch):
    repo = make_repo(tmp_path / "repo", {"util.py": CAP_BEFORE})
    write(repo, {"util.py": CAP_AFTER, "tests/test_util.py": TEST})
    monkeypatch.chdir(repo)
    assert prism(capsys, "init")[0] == 0
    clamp = range(7, 11)  # `def clamp` to its return, in util.py; the fix changed line 9
    code, out, err = _build(capsys, cache_dir, repo, "--out", str(tmp_path / "auto"))
    auto = json.loads(out.split("\n}\n")[0] + "\n}")
    assert code == 0, err
    assert "1 mutant there (fewer than 3): widened to the enclosing function `clamp`" in err
    assert auto["sites"] > 1 and {k["line"] for k in auto["kept"]} - {9}
    assert all(k["file"] == "util.py" and k["line"] in clamp for k in auto["kept"])
    # `--mutate changed` is strictly the changed line: its one mutant.
    code, out, err = _build(capsys, cache_dir, repo, "--mutate", "changed", "--out", str(tmp_path / "changed"))
    strict = json.loads(out.split("\n}\n")[0] + "\n}")
    assert strict["sites"] == 1, out
    assert all(k["line"] == 9 for k in strict["kept"]) and "widened" not in err, out

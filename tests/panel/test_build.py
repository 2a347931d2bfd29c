"""`prism panel build` through the real engine and sandbox: kept mutants are invalid by the verifier,
rejected by the strong suite, each with a witness; the result passes `panel check`; the same seed
gives the same bytes; a mutant in the open dimension is never labelled invalid."""

import json
import re

from prism_lsp.cli import prism_main
from prism_lsp.engine.session import RunOptions
from prism_lsp.judge.report import build_report
from prism_lsp.model.run import Suite
from prism_lsp.panel.diffs import tree_diff
from prism_lsp.panel.mutate import mutants_of
from prism_lsp.panel.verifier import run_verifier
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES


def _files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_build_top_tags(tmp_path, capsys, cache_dir, engine):
    before = _files(FIXTURES / "top-tags")
    first, second = tmp_path / "first", tmp_path / "second"
    for out in (first, second):
        code = prism_main(
            [
                "panel",
                "build",
                str(FIXTURES / "top-tags"),
                "--out",
                str(out),
                "--seed",
                "7",
                "--json",
                "--sandbox",
                "bubblewrap",
                "--cache-dir",
                str(cache_dir),
            ]
        )
        assert code == 0
    data = json.loads(capsys.readouterr().out.split("\n}\n")[0] + "\n}")
    assert _files(FIXTURES / "top-tags") == before  # the task itself is untouched with --out
    assert _files(first) == _files(second)  # same seed, same bytes
    assert data["labelled_by"] == "verifier" and len(data["kept"]) == 5
    for k in data["kept"]:
        assert k["verifier_failed"] and k["witness"]["call"].startswith("top_tags(")
        assert k["witness"]["got"] != k["witness"]["expected"]

    task = load_task(first)
    mutants = [c for c in task.candidates if c.origin == "mutant"]
    assert len(mutants) == 5 and all(not c.valid for c in mutants)
    assert {c.id for c in mutants} == {k["id"] for k in data["kept"]}
    assert all("witness: top_tags(" in c.note for c in mutants)
    # Each is rejected by the verifier and by the task's strong suite.
    judged = run_verifier(engine, task, sandbox="bubblewrap")
    assert all(j.agrees and (j.candidate.valid or j.failed) for j in judged)
    strong = first / "suites" / "test_strong.py"
    suite = Suite(task.suite_rel(strong), strong.read_text())
    report = build_report(task, suite, engine.run(task, suite, RunOptions(sandbox="bubblewrap")))
    assert all(c.verdict == "rejected" for c in report.candidates if c.id in {m.id for m in mutants})

    code = prism_main(
        ["panel", "check", str(first), "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)]
    )
    check = json.loads(capsys.readouterr().out)
    assert code == 0 and check["ok"], check["rules"]
    assert {r["rule"]: r["status"] for r in check["rules"]}["labels agree with the verifier"] == "ok"

    # A rebuild in place replaces the generated block: the same bytes again.
    assert (
        prism_main(
            ["panel", "build", str(first), "--seed", "7", "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)]
        )
        == 0
    )
    assert _files(first) == _files(second)


DIVMOD = (
    "def mean_rounded(values):\n    q, r = divmod(sum(values), len(values))\n    return q + (2 * r >= len(values))\n"
)


def test_a_mutant_in_the_open_dimension_is_never_labelled_invalid(fixture_copy, capsys, cache_dir):
    """mean-rounded leaves the rounding of halves open. With a reference that rounds half up through
    `2 * r >= n`, the boundary flip to `>` rounds half down: valid by the statement, so no witness
    exists (the valid candidates disagree exactly there) and the mutant must not be kept."""
    flip = "boundary: `(2 * r >= len(values))` -> `(2 * r > len(values))`"
    assert flip in {m.description for m in mutants_of("solution.py", DIVMOD)}  # it is generated
    root = fixture_copy("mean-rounded")
    task = load_task(root)
    (root / "candidates" / "reference.diff").write_text(tree_diff(task.initial, {"solution.py": DIVMOD}))
    manifest = (root / "prism.toml").read_text()
    (root / "prism.toml").write_text(
        re.sub(r'(patch = "candidates/reference.diff"\n)sha256 = "[0-9a-f]+"\n', r"\1", manifest)
    )
    code = prism_main(
        [
            "panel",
            "build",
            str(root),
            "--max-invalid",
            "20",
            "--json",
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["labelled_by"] == "witnesses"
    changes = [k["change"] for k in data["kept"]]
    assert flip not in changes
    assert len(data["kept"]) < 20  # so not kept is not the --max-invalid cap at work
    assert data["dropped"]["no witness (open dimension or equivalent)"] >= 1
    assert data["kept"], data  # other mutants (e.g. `2 * r` -> `3 * r`) do have witnesses
    task = load_task(root)
    flipped = [c for c in task.candidates if "2 * r > len(values)" in c.source.read_text()]
    assert not flipped

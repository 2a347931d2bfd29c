"""`prism panel check` (= `prism check`) fitness rules on panels that break them, through the real sandbox."""

import json
import shutil

from prism_lsp.cli import prism_main
from prism_lsp.panel.diffs import tree_diff
from prism_lsp.panel.write import NewCandidate, append_candidates
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES
from tests.panel.top_tags import GOOD


def _check(root, capsys, cache_dir):
    code = prism_main(["panel", "check", str(root), "--json", "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)])
    data = json.loads(capsys.readouterr().out)
    return code, {r["rule"]: r for r in data["rules"]}, data


def test_wrong_labels_and_duplicate_behaviour_make_a_panel_unfit(tmp_path, capsys, cache_dir):
    root = tmp_path / "t"
    shutil.copytree(FIXTURES / "top-tags", root)
    task = load_task(root)
    no_lower = GOOD.replace(".strip().lower()", ".strip()")
    # Same behaviour as no-lower, other code: a duplicate bug.
    no_lower_too = no_lower.replace("counts.get(tag, 0) + 1", "1 + counts.get(tag, 0)")
    append_candidates(
        task,
        [
            NewCandidate("good-but-called-invalid", "invalid", "sample", tree_diff(task.initial, {"tags.py": GOOD})),
            NewCandidate("no-lower", "invalid", "sample", tree_diff(task.initial, {"tags.py": no_lower})),
            NewCandidate("no-lower-too", "invalid", "sample", tree_diff(task.initial, {"tags.py": no_lower_too})),
        ],
    )
    code, rules, data = _check(root, capsys, cache_dir)
    assert code == 1 and data["ok"] is False
    labels = rules["labels agree with the verifier"]
    assert labels["status"] == "unfit"
    assert "`good-but-called-invalid` is labelled invalid, the verifier says valid" in labels["detail"]
    assert "no-lower`" not in labels["detail"]
    rejected = rules["each invalid candidate rejected by a verifier test"]
    assert rejected["status"] == "unfit" and "`good-but-called-invalid`" in rejected["detail"]
    same = rules["no two candidates behave the same on the probe inputs"]
    assert same["status"] == "unfit"
    assert "`no-lower`, `no-lower-too` behave the same" in same["detail"]


def test_the_shipped_fixture_panels_are_fit(capsys, cache_dir):
    code, rules, data = _check(FIXTURES / "top-scorers", capsys, cache_dir)
    assert code == 0 and data["ok"]
    assert rules["labels agree with the verifier"]["status"] == "skipped"
    assert 0.5 <= data["diversity"] <= 1
    assert rules["valid candidates are diverse (mean pairwise AST distance)"]["status"] == "ok"

"""The panel build's time budget holds inside a batch of mutants, not only between batches.

A batch of 40 mutants on a real repository probed for minutes past `--budget-s` (505 s at 60 s on
boltons' singularize fix, bench/real_repos.py): the budget was checked between batches only.
"""

from __future__ import annotations

import json

from prism_lsp.cli import prism_main


def test_a_spent_budget_stops_the_first_batch_and_says_so(fixture_copy, capsys, cache_dir):
    root = fixture_copy("mean-rounded")
    code = prism_main(
        [
            "panel",
            "build",
            str(root),
            "--budget-s",
            "0.001",
            "--json",
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    # Mutants the budget left unjudged are said to be so, not dropped as equivalent.
    assert data["dropped"]["not judged: the time budget ran out while probing"] >= 1
    assert "no witness (open dimension or equivalent)" not in data["dropped"]
    assert any("time budget (0.001 s) inside batch 1" in n for n in data["notes"])
    assert data["kept"] == [] and code == 1

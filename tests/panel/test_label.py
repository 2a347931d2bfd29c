"""`prism panel label TASK ROWS.jsonl`: valid, invalid, non-compiling and hanging rows; every row
accounted for, labelled ones written with origin "sample"; the verifier checked first."""

import json

from prism_lsp.cli import prism_main
from prism_lsp.tasks import load_task
from tests.conftest import FIXTURES
from tests.panel.top_tags import GOOD

ROWS = [
    {"id": "good", "code": GOOD},
    {"id": "no-lower", "code": GOOD.replace(".strip().lower()", ".strip()")},
    {"id": "broken", "code": "def top_tags(posts, k)\n    return []\n"},
    {"id": "hangs", "code": "def top_tags(posts, k):\n    while True:\n        pass\n"},
    {"id": "good", "code": GOOD},
    {"id": "Not An Id", "code": GOOD},
    {"id": "both", "code": GOOD, "patch": "x"},
    {"id": "escapes", "code": GOOD, "file": "../../etc/passwd"},
]


def _write_rows(path, rows, extra_lines=()):
    path.write_text("\n".join([json.dumps(r) for r in rows] + list(extra_lines)) + "\n")
    return path


def test_label_rows_with_the_verifier(tmp_path, capsys, cache_dir):
    rows = _write_rows(tmp_path / "rows.jsonl", ROWS, ["{not json"])
    out = tmp_path / "task"
    code = prism_main(
        [
            "panel",
            "label",
            str(FIXTURES / "top-tags"),
            str(rows),
            "--out",
            str(out),
            "--json",
            "--timeout",
            "2",
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1  # some rows could not be labelled
    by_row = {r["row"]: r for r in data["rows"]}
    assert sorted(by_row) == list(range(1, 10))  # nothing lost
    assert by_row[1]["label"] == "valid" and not by_row[1]["error"]
    assert by_row[2]["label"] == "invalid"
    assert "test_returned_lower_case_and_stripped" in by_row[2]["failed"]
    assert by_row[3]["label"] is None and by_row[3]["error"].startswith("does not compile: SyntaxError")
    assert by_row[4]["label"] is None and "timeout" in by_row[4]["error"]
    assert "used by an earlier row" in by_row[5]["error"]
    assert "[a-z0-9._-]+" in by_row[6]["error"]
    assert "exactly one of `code`" in by_row[7]["error"]
    assert "relative path inside the program" in by_row[8]["error"]
    assert by_row[9]["error"].startswith("not JSON")
    assert data["written"] == ["good", "no-lower"]
    task = load_task(out)
    added = {c.id: c for c in task.candidates if c.origin == "sample"}
    assert {k: c.label for k, c in added.items()} == {"good": "valid", "no-lower": "invalid"}
    # A second run with the same ids: they are in the panel now, and say so.
    code = prism_main(
        [
            "panel",
            "label",
            str(out),
            str(_write_rows(tmp_path / "again.jsonl", ROWS[:1])),
            "--json",
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    again = json.loads(capsys.readouterr().out)
    assert code == 1 and "already in the panel" in again["rows"][0]["error"]


def test_label_without_a_verifier_uses_witnesses(tmp_path, capsys, cache_dir):
    rows = _write_rows(
        tmp_path / "rows.jsonl",
        [
            {
                "id": "divmod-half-down",
                "code": "def mean_rounded(values):\n    q, r = divmod(sum(values), len(values))\n"
                "    return q + (2 * r > len(values))\n",
            },
            {
                "id": "divmod-ceil",
                "code": "def mean_rounded(values):\n    q, r = divmod(sum(values), len(values))\n"
                "    return q + (r > 0)\n",
            },
        ],
    )
    code = prism_main(
        [
            "panel",
            "label",
            str(FIXTURES / "mean-rounded"),
            str(rows),
            "--out",
            str(tmp_path / "t"),
            "--sandbox",
            "bubblewrap",
            "--cache-dir",
            str(cache_dir),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "no verifier in the manifest: labels come from witnesses" in " ".join(out.split())
    labels = {c.id: c.label for c in load_task(tmp_path / "t").candidates}
    # half down is in the open dimension (valid); rounding every fraction up is not
    assert labels["divmod-half-down"] == "valid" and labels["divmod-ceil"] == "invalid"


def _task_with_verifier(root, verifier_text):
    import shutil

    shutil.copytree(FIXTURES / "top-tags", root)
    (root / "verifier" / "test_judge.py").write_text(verifier_text)
    return root


def test_a_verifier_that_rejects_the_reference_is_an_error_naming_it(tmp_path, capsys, cache_dir):
    root = _task_with_verifier(
        tmp_path / "t", "from tags import top_tags\n\ndef test_x():\n    assert top_tags(['a'], 1) == ['A']\n"
    )
    for argv in (
        ["panel", "build", str(root)],
        ["panel", "check", str(root)],
        ["panel", "label", str(root), str(_write_rows(tmp_path / "r.jsonl", ROWS[:1]))],
    ):
        code = prism_main([*argv, "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)])
        err = capsys.readouterr().err
        assert code == 2, argv
        assert "the verifier verifier/test_judge.py does not pass on the reference" in " ".join(err.split())
        assert "Traceback" not in err
    assert not (root / "candidates" / "mutants").exists() and not (root / "candidates" / "samples").exists()


def test_a_verifier_that_passes_on_the_initial_program_is_an_error_naming_it(tmp_path, capsys, cache_dir):
    root = _task_with_verifier(
        tmp_path / "t", "from tags import top_tags\n\ndef test_x():\n    assert isinstance(top_tags(['a'], 1), list)\n"
    )
    code = prism_main(["panel", "build", str(root), "--sandbox", "bubblewrap", "--cache-dir", str(cache_dir)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "the verifier verifier/test_judge.py passes on the initial program" in err

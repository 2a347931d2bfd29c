"""Updating a task with `prism init`: the statement it took from git follows the fix, the one the
author wrote stays; `.prism/` without a manifest beside it is not overwritten."""

from __future__ import annotations

from prism_lsp.tasks import load_task
from tests.repo.gitrepo import commit, make_repo, prism, snapshot, write

CODE = {"calc.py": "def add(a, b):\n    return a - b\n"}
FIXED = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


def test_the_statement_from_git_follows_the_fix_and_the_authors_stays(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, FIXED)
    assert prism(capsys, "init", str(repo))[0] == 0
    assert load_task(repo).statement.startswith("The fix in the working tree, against ")
    commit(repo, "add: sum, not difference\n\nThe sign was wrong.")
    assert prism(capsys, "init", str(repo), "--fix", "HEAD")[0] == 0
    assert load_task(repo).statement == "add: sum, not difference\n\nThe sign was wrong."

    manifest = repo / "prism.toml"
    manifest.write_text(
        manifest.read_text().replace(
            'statement = "add: sum, not difference\\n\\nThe sign was wrong."',
            'statement = "Return the sum of two numbers."',
        )
    )
    write(repo, {"README": "calc\n"})
    commit(repo, "readme")
    assert prism(capsys, "init", str(repo), "--base", "HEAD~2", "--fix", "HEAD")[0] == 0
    assert load_task(repo).statement == "Return the sum of two numbers."
    assert prism(capsys, "init", str(repo), "--base", "HEAD~2", "--statement", "Add a and b.")[0] == 0
    assert load_task(repo).statement == "Add a and b."


def test_a_prism_folder_without_a_manifest_is_not_overwritten(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, FIXED)
    (repo / ".prism").mkdir()
    (repo / ".prism" / "notes.txt").write_text("mine\n")
    files = snapshot(repo)
    code, _, err = prism(capsys, "init", str(repo))
    assert code == 2 and ".prism exists without a prism.toml beside it" in err
    assert snapshot(repo) == files


def test_hand_made_overlay_and_patch_candidates_are_kept(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", {**CODE, "patches/.keep": ""})
    write(repo, FIXED)
    assert prism(capsys, "init", str(repo))[0] == 0
    write(
        repo,
        {
            ".prism/candidates/product/calc.py": "def add(a, b):\n    return a * b\n",
            "patches/zero.diff": "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
            "-    return a - b\n+    return 0\n",
        },
    )
    with open(repo / "prism.toml", "a") as fh:
        fh.write(
            '\n[[candidate]]\nid = "product"\nlabel = "invalid"\noverlay = ".prism/candidates/product"\n'
            '\n[[candidate]]\nid = "zero"\nlabel = "invalid"\npatch = "patches/zero.diff"\n'
        )
    commit(repo, "fix")
    code, out, err = prism(capsys, "init", str(repo), "--fix", "HEAD")
    assert code == 0, err
    task = load_task(repo)
    assert [(c.id, c.label, c.kind) for c in task.candidates] == [
        ("reference", "valid", "patch"),
        ("product", "invalid", "overlay"),
        ("zero", "invalid", "patch"),
    ]
    assert (repo / ".prism" / "candidates" / "product" / "calc.py").read_text().endswith("a * b\n")


def test_the_manifest_names_its_schema_for_toml_editors_and_validates_against_it(tmp_path, capsys):
    import json
    import tomllib

    import jsonschema

    from tests.repo.gitrepo import status

    repo = make_repo(tmp_path / "r", CODE)
    write(repo, FIXED)
    assert prism(capsys, "init", str(repo))[0] == 0
    text = (repo / "prism.toml").read_text()
    assert text.startswith("#:schema ./.prism/prism.toml.schema.json\n# Made by `prism init`")
    schema = json.loads((repo / ".prism" / "prism.toml.schema.json").read_text())
    jsonschema.validate(tomllib.loads(text), schema, cls=jsonschema.Draft202012Validator)
    assert ".prism" not in status(repo) and "prism.toml" not in status(repo)  # excluded, as the task is
    write(repo, {"README": "calc\n"})
    assert prism(capsys, "init", str(repo))[0] == 0  # still recognised as its own: updated, not refused

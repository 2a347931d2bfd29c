"""Bad input to `prism init`: one precise line, exit status 2, nothing written."""

from __future__ import annotations

import pytest

from tests.repo.gitrepo import commit, git, make_repo, prism, snapshot, status, write

CODE = {"calc.py": "def add(a, b):\n    return a - b\n"}
FIXED = {"calc.py": "def add(a, b):\n    return a + b\n"}
TEST = {"tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"}


def _fails(capsys, repo, *args, match):
    before, files = status(repo), snapshot(repo)
    code, out, err = prism(capsys, "init", str(repo), *args)
    assert code == 2, out + err
    assert match in " ".join(err.split()), err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert status(repo) == before and snapshot(repo) == files
    assert not (repo / "prism.toml").exists() and not (repo / ".prism").exists()
    assert not any(p.name.startswith("prism-init-") for p in (repo / ".git").iterdir())


def test_not_a_git_repository(tmp_path, capsys):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "calc.py").write_text("x = 1\n")
    code, _, err = prism(capsys, "init", str(folder))
    assert code == 2 and "is not inside a git repository" in err
    assert sorted(p.name for p in folder.iterdir()) == ["calc.py"]


def test_a_dirty_tree_with_fix_rev(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, {**FIXED, **TEST})
    commit(repo, "fix")
    write(repo, {"calc.py": "def add(a, b):\n    return 0\n"})
    _fails(capsys, repo, "--fix", "HEAD", match="the working tree has uncommitted changes (calc.py)")


def test_a_merge_commit(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"other.py": "Y = 2\n"})
    commit(repo, "side work")
    git(repo, "checkout", "-q", "main")
    write(repo, {**FIXED, **TEST})
    commit(repo, "fix")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "merge", "-q", "--no-ff", "-m", "merge side", "side")
    _fails(
        capsys,
        repo,
        "--fix",
        "HEAD",
        match="--fix HEAD is a merge commit (2 parents): name the side to diff "
        "against with --base (e.g. --base HEAD^1)",
    )


def test_an_empty_diff(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    _fails(capsys, repo, match="no change between")
    _fails(capsys, repo, "--base", "HEAD", "--fix", "HEAD", match="no change between")


def test_a_submodule(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor/lib")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "add a submodule")
    write(repo, {**FIXED, **TEST})
    _fails(capsys, repo, match="holds a submodule (vendor/lib)")


def test_a_fix_changing_only_tests(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, TEST)
    _fails(capsys, repo, match="the fix changes only test files (tests/test_calc.py)")


def test_an_unknown_revision(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    _fails(capsys, repo, "--base", "nope", match="--base nope: no such commit")


def test_a_repository_without_commits(tmp_path, capsys):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, CODE)
    _fails(capsys, repo, match="has no commit yet")


def test_a_prism_toml_not_made_by_init_is_never_overwritten(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", {**CODE, "prism.toml": "[task]\nid = 'mine'\n"})
    write(repo, {**FIXED, **TEST})
    _fails_keeping = snapshot(repo)
    code, _, err = prism(capsys, "init", str(repo))
    assert code == 2 and "exists and was not made by prism init; refusing to overwrite it" in err
    assert snapshot(repo) == _fails_keeping


def test_a_fix_without_test_changes_makes_the_task_and_says_no_suite(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, FIXED)
    code, out, err = prism(capsys, "init", str(repo))
    assert code == 0, err
    assert "suites:    none" in out
    assert (
        "note: no suite found: the fix adds or changes no test module (pytest collects test_*.py or *_test.py)"
        in " ".join(out.split())
    )
    assert (repo / "prism.toml").is_file() and (repo / ".prism" / "candidates" / "reference.diff").is_file()


@pytest.mark.parametrize(
    "args, match",
    [
        (["--reference", "x.py"], "--reference goes with --scaffold DIR"),
    ],
)
def test_option_mistakes(tmp_path, capsys, args, match):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, {**FIXED, **TEST})
    _fails(capsys, repo, *args, match=match)


def test_fix_rev_whose_suite_differs_in_the_working_tree(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    write(repo, {**FIXED, **TEST})
    commit(repo, "fix")
    write(
        repo, {"tests/test_calc.py": TEST["tests/test_calc.py"] + "\n\ndef test_more():\n    assert add(0, 0) == 0\n"}
    )
    commit(repo, "more tests")
    _fails(
        capsys,
        repo,
        "--fix",
        "HEAD~1",
        match="suite tests/test_calc.py in the working tree is not its version at --fix",
    )


def test_merge_commit_with_an_explicit_base_is_a_fix(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    git(repo, "checkout", "-q", "-b", "fix")
    write(repo, {**FIXED, **TEST})
    commit(repo, "fix")
    git(repo, "checkout", "-q", "main")
    write(repo, {"other.py": "Y = 2\n"})
    commit(repo, "other work")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "merge", "-q", "--no-ff", "-m", "merge fix", "fix")
    code, out, err = prism(capsys, "init", str(repo), "--base", "HEAD^1", "--fix", "HEAD")
    assert code == 0, err
    assert "reference: the fix's changes to calc.py\n" in out and "suites:    tests/test_calc.py" in out


def test_the_users_diff_settings_do_not_change_the_reference(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", {**CODE, "sub/x.py": "X = 1\n"})
    for key, value in (("diff.noprefix", "true"), ("diff.mnemonicPrefix", "true"), ("diff.external", "false")):
        git(repo, "config", key, value)
    write(repo, {**FIXED, **TEST})
    code, _, err = prism(capsys, "init", str(repo / "sub"))
    assert code == 0, err
    diff = (repo / ".prism" / "candidates" / "reference.diff").read_text()
    assert diff.startswith("diff --git a/calc.py b/calc.py\n") and "+++ b/calc.py" in diff


def test_a_symlink_leaving_the_repository_is_refused(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", CODE)
    (repo / "passwd").symlink_to("/etc/passwd")
    (repo / "alias.py").symlink_to("calc.py")  # inside the tree: fine on its own
    commit(repo, "links")
    write(repo, {**FIXED, **TEST})
    _fails(capsys, repo, match="'passwd' at ")
    git(repo, "rm", "-q", "passwd")
    git(repo, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "no outside link", "--", "passwd")
    code, _, err = prism(capsys, "init", str(repo))
    assert code == 0, err
    assert (repo / ".prism" / "initial" / "alias.py").is_symlink()

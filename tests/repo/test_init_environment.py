"""A developer's environment is never part of a fix: a `.venv` the `.gitignore` does not list, what
`pip install -e .` writes (`*.egg-info/`, a setuptools-scm `_version.py`, `build/`), `__pycache__`.

`prism init --fix` used to refuse such a tree as dirty, and plain `prism init` made a reference of
the whole venv, with pip's vendored tests as suites."""

from __future__ import annotations

import pytest

from tests.repo.gitrepo import commit, git, make_repo, prism, run_json, status, write

BASE = {
    "pyproject.toml": '[project]\nname = "shop"\ndynamic = ["version"]\n\n[tool.setuptools_scm]\n'
    'write_to = "src/shop/_version.py"\n',
    "src/shop/__init__.py": "from shop._version import version as __version__\n",
    "src/shop/money.py": "def cents(euros):\n    return int(euros * 10)\n",
}
FIX = {
    "src/shop/money.py": "def cents(euros):\n    return round(euros * 100)\n",
    "tests/test_money.py": "import shop\nfrom shop.money import cents\n\n\ndef test_cents():\n"
    "    assert shop.__version__ == '1.0.dev3'\n    assert cents(2.5) == 250\n",
}
# What a venv and an editable install leave in the work tree; no .gitignore lists any of it.
ENVIRONMENT = {
    ".venv/pyvenv.cfg": "home = /usr/bin\nversion = 3.11.7\n",
    ".venv/bin/python": "not run\n",
    ".venv/lib/python3.11/site-packages/pip/_vendor/tests/test_vendored.py": "def test_x():\n    pass\n",
    "envs/py312/pyvenv.cfg": "home = /usr/bin\n",  # a venv inside an untracked folder
    "envs/py312/lib/python3.12/site-packages/x.py": "",
    "src/shop/_version.py": "version = '1.0.dev3'\n",
    "src/shop.egg-info/PKG-INFO": "Name: shop\n",
    "src/shop/__pycache__/money.cpython-311.pyc": b"\0\0",
    "build/lib/shop/money.py": "def cents(euros):\n    return 0\n",
}


@pytest.mark.parametrize("committed", [True, False], ids=["--fix HEAD", "working tree"])
def test_the_environment_is_not_the_fix(tmp_path, capsys, committed):
    repo = make_repo(tmp_path / "shop", BASE)
    write(repo, {**ENVIRONMENT, **FIX})
    if committed:
        for rel in FIX:
            git(repo, "add", rel)
        git(repo, "commit", "-q", "-m", "cents: round")
    before = status(repo)
    code, out, err = prism(capsys, "init", str(repo), *(["--fix", "HEAD"] if committed else []))
    assert code == 0, err
    assert "generated files carried into every tree: src/shop/_version.py" in out
    reference = (repo / ".prism" / "candidates" / "reference.diff").read_text()
    assert [ln for ln in reference.splitlines() if ln.startswith("diff --git")] == [
        "diff --git a/src/shop/money.py b/src/shop/money.py"
    ]
    assert "test_vendored" not in out and "tests/test_money.py" in out
    assert not (repo / ".prism" / "initial" / ".venv").exists()

    report = run_json(
        capsys, repo / "tests" / "test_money.py", "--sandbox", "bubblewrap", "--cache-dir", str(tmp_path / "cache")
    )
    assert report["baseline"]["outcome"] == "fail", report["baseline"]
    assert {c["id"]: c["verdict"] for c in report["candidates"]} == {"reference": "accepted"}
    assert status(repo) == before


def test_a_tracked_file_in_build_still_counts_as_a_change(tmp_path, capsys):
    repo = make_repo(tmp_path / "r", {**BASE, "build/tool.py": "X = 1\n"})
    write(repo, {**FIX, "build/tool.py": "X = 2\n"})
    commit(repo, "fix")
    write(repo, {"build/tool.py": "X = 3\n"})
    code, _, err = prism(capsys, "init", str(repo), "--fix", "HEAD")
    assert code == 2 and "uncommitted changes (build/tool.py)" in err

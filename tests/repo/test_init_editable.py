"""A `src/`-layout package installed editable into the repository's own venv, with a version file
its build generates (git ignores it): each program must import its own tree's code.

Were the editable install's checkout imported instead, every program would run the fixed working
copy: the initial program would pass and a candidate breaking the function would be accepted.
Also: re-running `prism init` after the fix is committed updates the task and keeps the hand-made
candidate and its label; a hand-made candidate that no longer applies is a clear error.
"""

from __future__ import annotations

import site
import subprocess
import sys

import pytest

from tests.repo.gitrepo import commit, make_repo, prism, run_json, snapshot, status, write

SETUP = """\
    import pathlib

    from setuptools import setup

    # What setuptools-scm / hatch-vcs do: the build writes the version into the package.
    pathlib.Path(__file__).parent.joinpath("src/shop/_version.py").write_text('version = "1.0.dev3"\\n')
    setup(name="shop", version="1.0", package_dir={"": "src"}, packages=["shop"])
"""
BASE = {
    "setup.py": SETUP,
    "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64", "wheel"]\nbuild-backend = "setuptools.build_meta"\n',
    ".gitignore": ".venv/\n*.egg-info/\nbuild/\nsrc/shop/_version.py\n",
    "src/shop/__init__.py": "from shop._version import version as __version__\n",
    "src/shop/money.py": "def cents(euros):\n    return int(euros * 10)\n",
}
FIX = {
    "src/shop/money.py": "def cents(euros):\n    return round(euros * 100)\n",
    "tests/test_money.py": """\
        import shop
        from shop.money import cents


        def test_cents():
            assert shop.__version__ == "1.0.dev3"
            assert cents(2.5) == 250
            assert cents(0.29) == 29
    """,
}
BROKEN = """\
diff --git a/src/shop/money.py b/src/shop/money.py
--- a/src/shop/money.py
+++ b/src/shop/money.py
@@ -1,2 +1,2 @@
 def cents(euros):
-    return int(euros * 10)
+    return int(euros * 100)
"""
HAND_MADE = (
    '\n[[candidate]]\nid = "truncates"\nlabel = "invalid"\npatch = ".prism/candidates/truncates.diff"\n'
    'note = "int() truncates 0.29 * 100 = 28.999…"\n'
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """The repository, its venv made and the package installed editable (offline)."""
    path = make_repo(tmp_path_factory.mktemp("editable") / "shop", BASE)
    venv = path / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # The venv reaches pytest, pip and setuptools through the test interpreter's site-packages,
    # as a developer's venv has them installed.
    (next(venv.glob("lib/python*/site-packages")) / "_tools.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "-q",
            "-e",
            str(path),
        ],
        check=True,
        capture_output=True,
        cwd=path,
    )
    assert (path / "src" / "shop" / "_version.py").is_file()
    assert any(venv.glob("lib/python*/site-packages/__editable__*shop*")), "expected a PEP 660 editable install"
    write(path, FIX)
    return path


@pytest.mark.parametrize("sandbox", ["bubblewrap", "none"])
def test_each_program_imports_its_own_tree(repo, sandbox, tmp_path, capsys):
    before = status(repo)
    code, out, err = prism(capsys, "init", str(repo))
    assert code == 0, err
    assert "generated files carried into every tree: src/shop/_version.py" in out
    assert "import roots first on sys.path: src" in out
    assert "python:    venv .venv/ (pytest" in out
    if "truncates" not in out:  # the second sandbox finds it kept by this `prism init`
        (repo / ".prism" / "candidates" / "truncates.diff").write_text(BROKEN)
        with open(repo / "prism.toml", "a") as fh:
            fh.write(HAND_MADE)

    report = run_json(
        capsys, repo / "tests" / "test_money.py", "--sandbox", sandbox, "--cache-dir", str(tmp_path / "cache")
    )
    verdicts = {c["id"]: (c["outcome"], c["verdict"]) for c in report["candidates"]}
    assert report["baseline"]["outcome"] == "fail", report["baseline"]
    assert verdicts == {"reference": ("pass", "accepted"), "truncates": ("fail", "rejected")}, report
    assert report["metrics"]["jsf"] is True
    assert status(repo) == before


def test_init_again_updates_the_task_and_keeps_hand_made_candidates(repo, tmp_path, capsys):
    assert (repo / ".prism" / "candidates" / "truncates.diff").is_file(), "runs after the test above"
    commit(repo, "cents: round, not truncate")
    before = status(repo)
    code, out, err = prism(capsys, "init", str(repo), "--base", "HEAD~1", "--fix", "HEAD")
    assert code == 0, err
    assert out.startswith("updated the task") and "kept candidates: truncates" in out
    manifest = (repo / "prism.toml").read_text()
    assert 'id = "truncates"\nlabel = "invalid"' in manifest and "fix " in manifest.splitlines()[1]
    assert manifest.startswith("#:schema ./.prism/prism.toml.schema.json\n# Made by `prism init`")
    report = run_json(capsys, repo / "tests" / "test_money.py", "--cache-dir", str(tmp_path / "cache"))
    assert {c["id"]: c["verdict"] for c in report["candidates"]} == {"reference": "accepted", "truncates": "rejected"}
    assert status(repo) == before

    # A hand-made candidate that no longer applies to the new initial state: an error, nothing changed.
    write(
        repo,
        {
            "src/shop/money.py": "def cents(euros):\n    return round(euros * 100)  # exact\n",
            "tests/test_money.py": FIX["tests/test_money.py"].replace("== 29", "== 29  # exact"),
        },
    )
    commit(repo, "comment")
    files = snapshot(repo)
    code, out, err = prism(capsys, "init", str(repo), "--fix", "HEAD")
    assert code == 2
    assert "candidate 'truncates' (kept from the task already there) does not apply to the new initial state" in err
    assert snapshot(repo) == files

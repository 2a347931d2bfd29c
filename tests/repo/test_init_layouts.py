"""`prism init` on realistic repository layouts, then `prism run` on the fix's test.

Each layout is a real git repository: the code before the fix is committed, the fix (code and
test) is left in the working tree or committed. `prism init` must make a task whose initial
state fails the suite and whose reference passes it, and leave `git status` as it was.
"""

from __future__ import annotations

import pytest

from tests.repo.gitrepo import commit, make_repo, prism, run_json, snapshot, status, write

BUGGY = """\
    def add(a, b):
        return a - b
"""
FIXED = """\
    def add(a, b):
        return a + b
"""
TEST = """\
    from {module} import add


    def test_add():
        assert add(2, 3) == 5
"""

LAYOUTS = {
    # name: (base files, fix files, suite path, reference files, support files)
    "flat, pytest.ini": (
        {"calc.py": BUGGY, "pytest.ini": "[pytest]\naddopts = -ra\n", "test_other.py": "def test_x():\n    pass\n"},
        {"calc.py": FIXED, "test_calc.py": TEST.format(module="calc")},
        "test_calc.py",
        ["calc.py"],
        [],
    ),
    "src package, pythonpath in [tool.pytest.ini_options]": (
        {
            "src/shop/__init__.py": "",
            "src/shop/calc.py": BUGGY,
            "pyproject.toml": '[project]\nname = "shop"\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        },
        {"src/shop/calc.py": FIXED, "tests/test_calc.py": TEST.format(module="shop.calc")},
        "tests/test_calc.py",
        ["src/shop/calc.py"],
        [],
    ),
    "src package, no pythonpath (import root from the layout)": (
        {"src/shop/__init__.py": "", "src/shop/calc.py": BUGGY, "pyproject.toml": '[project]\nname = "shop"\n'},
        {"src/shop/calc.py": FIXED, "tests/test_calc.py": TEST.format(module="shop.calc")},
        "tests/test_calc.py",
        ["src/shop/calc.py"],
        [],
    ),
    "tests beside code, setup.cfg python_files": (
        {"shop/__init__.py": "", "shop/calc.py": BUGGY, "setup.cfg": "[tool:pytest]\npython_files = check_*.py\n"},
        {"shop/calc.py": FIXED, "shop/check_calc.py": TEST.format(module="shop.calc")},
        "shop/check_calc.py",
        ["shop/calc.py"],
        [],
    ),
    "pytest 9 native [tool.pytest], python_files": (
        {"calc.py": BUGGY, "pyproject.toml": '[tool.pytest]\npython_files = ["spec_*.py"]\n'},
        {"calc.py": FIXED, "spec_calc.py": TEST.format(module="calc")},
        "spec_calc.py",
        ["calc.py"],
        [],
    ),
    "tox.ini, a conftest fixture the fix adds (export-ignore)": (
        {
            "calc.py": BUGGY,
            "tox.ini": "[pytest]\ntestpaths = tests\n",
            "tests/conftest.py": "import pytest\n",
            # Left out of `git archive`, so of a release tarball; every program tree still needs it.
            ".gitattributes": "tests/conftest.py export-ignore\n",
        },
        {
            "calc.py": FIXED,
            "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef pair():\n    return (2, 3)\n",
            "tests/test_calc.py": "from calc import add\n\n\ndef test_add(pair):\n    assert add(*pair) == 5\n",
        },
        "tests/test_calc.py",
        ["calc.py"],
        ["tests/conftest.py"],
    ),
    "a project in a subfolder, its own config and src/": (
        {
            "README.md": "monorepo\n",
            "web/app.js": "1;\n",
            "py/src/shop/__init__.py": "",
            "py/src/shop/calc.py": BUGGY,
            "py/pyproject.toml": '[tool.pytest.ini_options]\npython_files = "check_*.py"\n',
        },
        {"py/src/shop/calc.py": FIXED, "py/tests/check_calc.py": TEST.format(module="shop.calc")},
        "py/tests/check_calc.py",
        ["py/src/shop/calc.py"],
        [],
    ),
    "a binary file, a renamed file, a deleted file": (
        {
            "calc.py": "from helpers import BUGGY_OFFSET\n\n\ndef add(a, b):\n    return a + b + BUGGY_OFFSET\n",
            "helpers.py": "# The offset added to every sum.\n# Kept in one place.\nBUGGY_OFFSET = 1\n",
            "legacy.py": "OLD = True\n",
            "data.bin": bytes(range(256)),
            "tests/data/blob.bin": b"\x00\x01",
            # Checked out with CRLF, stored with LF: the program trees hold what git stores, as the diffs do.
            ".gitattributes": "*.cmd text eol=crlf\n",
            "run.cmd": "echo 1\n",
        },
        {
            "calc.py": "from offsets import OFFSET\n\n\ndef add(a, b):\n    return a + b + OFFSET\n",
            "helpers.py": None,
            "offsets.py": "# The offset added to every sum.\n# Kept in one place.\nOFFSET = 0\n",
            "legacy.py": None,
            "data.bin": bytes(range(255, -1, -1)),
            "tests/data/blob.bin": b"\x00\x02\xff",
            "run.cmd": "echo 2\n",
            "tests/test_calc.py": "import pathlib\n\nfrom calc import add\n\n\ndef test_add():\n"
            "    assert add(2, 3) == 5\n\n\ndef test_data():\n"
            "    here = pathlib.Path(__file__).parent\n"
            "    assert (here / 'data' / 'blob.bin').read_bytes() == b'\\x00\\x02\\xff'\n",
        },
        "tests/test_calc.py",
        ["calc.py", "data.bin", "legacy.py", "run.cmd", "helpers.py -> offsets.py"],
        ["tests/data/blob.bin"],
    ),
}


# Import roots Prism adds (pytest's own `pythonpath`, when set, does it instead).
ROOTS = {
    "src package, no pythonpath (import root from the layout)": "src",
    "a project in a subfolder, its own config and src/": "py/src",
}


@pytest.mark.parametrize("committed", [False, True], ids=["working tree", "--base HEAD~1 --fix HEAD"])
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_init_then_run_detects_the_bug_and_accepts_the_fix(name, committed, tmp_path, capsys):
    base, fix, suite, reference, support = LAYOUTS[name]
    repo = make_repo(tmp_path / "repo", base)
    write(repo, fix)
    args = ["init", str(repo)]
    if committed:
        commit(repo, "fix add")
        args += ["--base", "HEAD~1", "--fix", "HEAD"]
    before, files_before = status(repo), snapshot(repo)

    code, out, err = prism(capsys, *args)
    assert code == 0, err
    assert f"suites:    {suite}" in out
    listed = next(line for line in out.splitlines() if line.startswith("  reference: the fix's changes to "))
    assert sorted(listed.split(" to ", 1)[1].split(", ")) == sorted(reference)
    roots = [line for line in out.splitlines() if line.startswith("  import roots first on sys.path: ")]
    assert roots == ([f"  import roots first on sys.path: {ROOTS[name]}"] if name in ROOTS else [])
    for rel in support:
        assert rel in out.split("test files joining the initial state:")[1].splitlines()[0]
    # The repository is as it was: only prism.toml and .prism/ were added, both excluded.
    assert status(repo) == before
    after = snapshot(repo)
    added = {k for k in after if k not in files_before}
    assert {k for k in added if not k.startswith(".prism/")} == {"prism.toml"}
    assert after[".git/info/exclude"].decode().splitlines()[-2:] == ["/prism.toml", "/.prism/"]
    assert {k: v for k, v in after.items() if k in files_before and k != ".git/info/exclude"} == {
        k: v for k, v in files_before.items() if k != ".git/info/exclude"
    }

    report = run_json(capsys, repo / suite, "--cache-dir", str(tmp_path / "cache"))
    assert report["suite"] == suite
    assert report["baseline"]["outcome"] == "fail", report["baseline"]
    assert report["metrics"]["detects_baseline"] and report["metrics"]["rar"], report
    assert status(repo) == before

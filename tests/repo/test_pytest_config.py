"""The pytest configuration read as pytest 9 reads it: which file wins, and native TOML vs INI values."""

from __future__ import annotations

import pytest

from prism_lsp.tasks.pytest_config import DEFAULT_PYTHON_FILES, nearest_config, read_pytest_config

CASES = [
    ({}, None, DEFAULT_PYTHON_FILES, ()),
    (
        {
            "pytest.toml": '[pytest]\npython_files = ["spec_*.py"]\npythonpath = ["src", "lib"]\n',
            "pytest.ini": "[pytest]\npython_files = other_*.py\n",
        },
        "pytest.toml",
        ("spec_*.py",),
        ("src", "lib"),
    ),
    ({".pytest.toml": '[pytest]\npython_files = ["a_*.py"]\n'}, ".pytest.toml", ("a_*.py",), ()),
    (
        {"pytest.ini": "[other]\nx = 1\n", "pyproject.toml": '[tool.pytest.ini_options]\npython_files = "b_*.py"\n'},
        "pytest.ini",
        DEFAULT_PYTHON_FILES,
        (),
    ),
    (
        {"pyproject.toml": '[tool.pytest]\npython_files = ["c_*.py", "d_*.py"]\npythonpath = ["src"]\n'},
        "pyproject.toml",
        ("c_*.py", "d_*.py"),
        ("src",),
    ),
    (
        {"pyproject.toml": '[tool.pytest.ini_options]\npython_files = "e_*.py f_*.py"\npythonpath = "src"\n'},
        "pyproject.toml",
        ("e_*.py", "f_*.py"),
        ("src",),
    ),
    (
        {"pyproject.toml": '[project]\nname = "x"\n', "tox.ini": "[pytest]\npython_files = g_*.py\n"},
        "tox.ini",
        ("g_*.py",),
        (),
    ),
    (
        {"tox.ini": "[tox]\nenvlist = py\n", "setup.cfg": "[tool:pytest]\npython_files = h_*.py\npythonpath = lib\n"},
        "setup.cfg",
        ("h_*.py",),
        ("lib",),
    ),
    ({"setup.cfg": "[metadata]\nname = x\n"}, None, DEFAULT_PYTHON_FILES, ()),
]


@pytest.mark.parametrize("files, winner, python_files, pythonpath", CASES)
def test_the_file_pytest_would_use_decides(tmp_path, files, winner, python_files, pythonpath):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    config = read_pytest_config(tmp_path)
    assert (config.file.name if config.file else None) == winner
    assert config.python_files == python_files and config.pythonpath == pythonpath


def test_the_nearest_configuration_above_a_file_governs_it(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_files = root_*.py\n")
    (tmp_path / "py" / "tests").mkdir(parents=True)
    (tmp_path / "py" / "pyproject.toml").write_text('[tool.pytest]\npython_files = ["sub_*.py"]\n')
    assert nearest_config(tmp_path, "py/tests/sub_x.py").python_files == ("sub_*.py",)
    assert nearest_config(tmp_path, "other/x.py").python_files == ("root_*.py",)


SUITE = (
    "from calc import add\n\n\ndef check_add():\n    assert add(2, 3) == 5\n\n\n"
    "def check_zero():\n    assert add(0, 0) == 0\n"
)


@pytest.mark.parametrize(
    "config",
    [
        ("pytest.toml", '[pytest]\npython_functions = ["check_*"]\n'),
        (".pytest.toml", '[pytest]\npython_functions = ["check_*"]\n'),
        ("pyproject.toml", '[project]\nname = "calc"\n\n[tool.pytest]\npython_functions = ["check_*"]\n'),
    ],
)
def test_the_configuration_pytest_reads_is_the_one_programs_are_judged_with(tmp_path, capsys, config):
    """pytest 9 collects `check_*` functions by `pytest.toml` (or native `[tool.pytest]`); every program is
    judged with that file, as plain pytest would judge it: initial fail, reference pass, invalid fail."""
    from prism_lsp.tasks.pytest_config import initial_config
    from tests.conftest import write_task
    from tests.repo.gitrepo import run_json

    name, text = config
    root = write_task(
        tmp_path / "task",
        initial={"calc.py": "def add(a, b):\n    return a - b\n", name: text},
        candidates=[
            {"id": "fixed", "reference": True, "files": {"calc.py": "def add(a, b):\n    return a + b\n"}},
            {"id": "times", "label": "invalid", "files": {"calc.py": "def add(a, b):\n    return a * b\n"}},
        ],
        suites={"test_calc.py": SUITE},
    )
    report = run_json(capsys, root / "test_calc.py", "--sandbox", "bubblewrap", "--cache-dir", str(tmp_path / "cache"))
    assert report["baseline"]["outcome"] == "fail", report["baseline"]
    assert {c["id"]: (c["outcome"], c["verdict"]) for c in report["candidates"]} == {
        "fixed": ("pass", "accepted"),
        "times": ("fail", "rejected"),
    }, report["candidates"]
    assert report["metrics"]["jsf"] is True
    assert initial_config(root / "initial", "test_calc.py") == (name, text)


def test_a_configuration_that_does_not_parse_still_wins_as_in_pytest(tmp_path):
    (tmp_path / "pytest.toml").write_text("[pytest\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_files = other_*.py\n")
    config = read_pytest_config(tmp_path)
    assert config.file == tmp_path / "pytest.toml" and config.python_files == DEFAULT_PYTHON_FILES

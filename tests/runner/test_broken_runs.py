"""Runs that break off or are cut short: where the error lands, what it says, what survives.

Through the real sandbox. A program may hang, exit, skip or stop the session from inside
a test: each is an `error` at the test it happened in, never a pass, and the tests that
finished before it keep their results.
"""

from __future__ import annotations

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INITIAL = {"calc.py": "def half(x):\n    return x // 2\n"}


def task_with(tmp_path, body: str, extra_task: str = ""):
    """A task whose only candidate (the reference) has `calc.half` with `body`."""
    return load_task(
        write_task(
            tmp_path / "task",
            initial=INITIAL,
            extra_task=extra_task,
            candidates=[{"id": "reference", "reference": True, "files": {"calc.py": body}}],
        )
    )


def run(engine, task, text: str, **options):
    result = engine.run(task, Suite("tests/test_calc.py", text), RunOptions(sandbox="bubblewrap", **options))
    return dict(result.results)[task.reference]


def by_name(res):
    return {t.name: t for t in res.tests}


def test_a_timeout_names_its_test_and_keeps_the_tests_before_it(tmp_path, engine):
    task = task_with(tmp_path, "def half(x):\n    return x // 2\n")
    text = (
        "from calc import half\n\n"
        "def test_good():\n    assert half(4) == 2\n\n"
        "def test_spin():\n    while True:\n        pass\n"
    )
    res = run(engine, task, text, timeout_s=2)
    assert res.outcome == "error" and res.reason == "timeout"
    assert res.line == 6 and "test_spin" in res.message
    tests = by_name(res)
    assert tests["test_good"].outcome == "pass" and [a.line for a in tests["test_good"].assertions] == [4]
    assert tests["test_spin"].outcome == "error" and tests["test_spin"].reason == "timeout"


def test_exiting_inside_a_test_is_an_error_at_that_test(tmp_path, engine):
    task = task_with(tmp_path, "import os\n\ndef half(x):\n    os._exit(0)\n")
    text = "from calc import half\n\ndef test_a():\n    assert True\n\ndef test_b():\n    assert half(4) == 2\n"
    res = run(engine, task, text)
    assert res.outcome == "error" and res.reason == "exited" and res.line == 6
    assert by_name(res)["test_a"].outcome == "pass"


@pytest.mark.parametrize(
    "call,reason",
    [
        ("import pytest; pytest.skip('not today')", "skipped"),
        ("import pytest; pytest.xfail('expected')", "skipped"),
        ("import pytest; pytest.exit('bye', returncode=0)", "interrupted"),
        ("raise KeyboardInterrupt", "interrupted"),
    ],
)
def test_a_program_that_skips_or_stops_the_session_does_not_pass(tmp_path, engine, call, reason):
    task = task_with(tmp_path, f"def half(x):\n    {call}\n")
    text = "from calc import half\n\ndef test_a():\n    assert half(4) == 2\n"
    res = run(engine, task, text)
    assert res.outcome == "error" and res.reason == reason, (res.reason, res.message)
    assert "calc.py, line 2" in res.message and res.line == 4


def test_the_suites_own_skips_and_xfails_are_respected(tmp_path, engine):
    task = task_with(tmp_path, "def half(x):\n    return x // 2\n")
    text = (
        "import pytest\nfrom calc import half\n\n"
        "@pytest.mark.skip(reason='later')\ndef test_later():\n    assert half(3) == 99\n\n"
        "def test_inline():\n    pytest.skip('not on this platform')\n\n"
        "@pytest.mark.xfail\ndef test_known():\n    assert half(3) == 99\n\n"
        "def test_real():\n    assert half(4) == 2\n"
    )
    assert run(engine, task, text).outcome == "pass"


def test_filterwarnings_error_fails_a_program_that_warns(tmp_path, engine):
    task = task_with(
        tmp_path,
        "import warnings\n\ndef half(x):\n    warnings.warn('deprecated', DeprecationWarning)\n    return x // 2\n",
    )
    text = (
        "import pytest\nfrom calc import half\n\n"
        "@pytest.mark.filterwarnings('error')\ndef test_a():\n    assert half(4) == 2\n"
    )
    res = run(engine, task, text)
    assert res.outcome == "fail" and "DeprecationWarning" in res.tests[0].message


def test_a_module_level_error_in_the_suite_points_at_its_line(tmp_path, engine):
    task = task_with(tmp_path, "def half(x):\n    return x // 2\n")
    res = run(
        engine, task, "from calc import half\nVALUES = [1]\nBAD = VALUES[5]\n\ndef test_a():\n    assert half(2) == 1\n"
    )
    assert res.outcome == "error" and res.reason == "collection"
    assert res.line == 3 and res.message == "IndexError: list index out of range"


def test_a_broken_program_is_named_by_file_and_line_without_sandbox_paths(tmp_path, engine):
    task = task_with(tmp_path, "def half(x):\n    return (\n")
    res = run(engine, task, "import os\nfrom calc import half\n\ndef test_a():\n    assert half(2) == 1\n")
    assert res.outcome == "error" and res.reason == "collection" and res.line == 2
    assert res.message == "SyntaxError: '(' was never closed (calc.py, line 2)"
    missing = run(
        engine,
        task_with(tmp_path / "b", "def other():\n    pass\n"),
        "from calc import half\n\ndef test_a():\n    assert half(2) == 1\n",
    )
    assert missing.message == "ImportError: cannot import name 'half' from 'calc' (calc.py)"


# Leaves files where a later program of the same runner could look: /tmp, /dev/shm, and the
# runner's scratch folder above its own run folder.
WRITER = """import os

def half(x):
    scratch = os.path.dirname(os.path.dirname(os.getcwd()))
    for folder in ("/tmp", "/dev/shm", scratch):
        with open(os.path.join(folder, "prism_marker"), "w") as fh:
            fh.write("left behind")
    return x // 2
"""

# Reports which of those files it can see.
READER = """import os

def half(x):
    scratch = os.path.dirname(os.path.dirname(os.getcwd()))
    seen = [f for f in ("/tmp", "/dev/shm", scratch) if os.path.exists(os.path.join(f, "prism_marker"))]
    return x // 2 if not seen else seen
"""


@pytest.mark.parametrize("sandbox", ["bubblewrap", pytest.param("docker", marks=pytest.mark.docker)])
def test_one_program_leaves_nothing_for_the_next_in_the_same_runner(tmp_path, cache_dir, sandbox, request):
    if sandbox == "docker":
        request.getfixturevalue("docker_image")
    from prism_lsp.engine.session import EngineSession

    task = load_task(
        write_task(
            tmp_path / "task",
            initial=INITIAL,
            candidates=[
                {"id": "writer", "reference": True, "files": {"calc.py": WRITER}},
                {"id": "reader", "files": {"calc.py": READER}},
            ],
        )
    )
    with EngineSession(cache_dir, workers=1) as one_runner:  # both programs in one runner, in turn
        result = one_runner.run(
            task,
            Suite("tests/test_calc.py", "from calc import half\n\ndef test_a():\n    assert half(4) == 2\n"),
            RunOptions(sandbox=sandbox),
        )
    results = {c.id: r for c, r in result.results}
    assert results["writer"].outcome == "pass"
    assert results["reader"].outcome == "pass", results["reader"].tests[0].message


def test_a_candidate_that_changes_the_suites_conftest_is_refused(tmp_path, engine):
    hijack = "def pytest_pyfunc_call(pyfuncitem):\n    return True\n"
    task = load_task(
        write_task(
            tmp_path / "task",
            initial={**INITIAL, "tests/conftest.py": "# fixtures\n"},
            candidates=[
                {"id": "reference", "reference": True, "files": {"calc.py": "def half(x):\n    return x // 2\n"}},
                {
                    "id": "hijack",
                    "label": "invalid",
                    "files": {"calc.py": "def half(x):\n    return 0\n", "tests/conftest.py": hijack},
                },
                {
                    "id": "copy",
                    "files": {"calc.py": "def half(x):\n    return x >> 1\n", "tests/conftest.py": "# fixtures\n"},
                },
            ],
        )
    )
    result = engine.run(
        task,
        Suite("tests/test_calc.py", "from calc import half\n\ndef test_a():\n    assert half(4) == 2\n"),
        RunOptions(sandbox="bubblewrap"),
    )
    results = {c.id: r for c, r in result.results}
    assert results["hijack"].outcome == "error" and results["hijack"].reason == "test-setup"
    assert "tests/conftest.py" in results["hijack"].message
    assert results["copy"].outcome == "pass"  # an unchanged copy of the set-up is no change

"""Terminal-Bench and Harbor edge cases: files moved as bytes (binary data, CRLF, Latin-1), symlinks,
Harbor's reward file, `.py` suites, and the task.yaml fields that used to be read loosely."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import diff, patch_set, prism, run_report, verdicts, write
from tests.importers.sample_tasks import harbor

WC = "def count_words(text):\n    return len(text.split(' '))\n"
WC_FIXED = "def count_words(text):\n    return len(text.split())\n"
WC_TEST = (
    "from wc import count_words\n\n\ndef test_lines():\n    assert count_words('a b\\nc') == 3\n\n\n"
    "def test_empty():\n    assert count_words('') == 0\n"
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe"


def python_task(
    root: Path,
    *,
    wc: bytes = WC.encode(),
    test: str = WC_TEST,
    panel: list[dict] | None = None,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """A Terminal-Bench task around `wc.py`, its patch set next to it (default: the fix as reference)."""
    write(
        root,
        {
            "task.yaml": "instruction: Count the words of a text.\nmax_test_timeout_sec: 30\n",
            "Dockerfile": "FROM prism-python:local\n",
            "run-tests.sh": "#!/bin/bash\npytest tests\n",
            "tests/test_outputs.py": test,
        },
    )
    (root / "wc.py").write_bytes(wc)
    for rel, data in (extra or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    patch_set(
        root.parent / f"{root.name}.patch-set",
        panel or [{"id": "reference", "label": "valid", "reference": True, "diff": diff("wc.py", WC, WC_FIXED)}],
    )
    return root


def _error(tmp_path: Path, src: Path, fmt: str = "terminal-bench", **options) -> TaskImportError:
    with pytest.raises(TaskImportError) as err:
        import_task(fmt, src, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()
    return err.value


def _cli_error(tmp_path: Path, *args: str) -> str:
    """`prism import ARGS` must fail with status 2 and a one-line reason, never a traceback."""
    proc = prism("import", *args, str(tmp_path / "cli-out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr


# -- bytes: binary test data, Latin-1 and CRLF patches ---------------------------------


def test_binary_test_data_is_imported_and_used(tmp_path):
    test = WC_TEST + (
        "\n\ndef test_reads_binary_data():\n    from pathlib import Path\n"
        f"    assert (Path(__file__).parent / 'data.png').read_bytes() == {PNG!r}\n"
    )
    src = python_task(tmp_path / "wc", test=test, extra={"tests/data.png": PNG})
    dest = tmp_path / "out"
    import_task("terminal-bench", src, dest)
    assert (dest / "initial" / "tests" / "data.png").read_bytes() == PNG
    code, report = run_report(dest, dest / "tests" / "test_outputs.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass"} and code == 0


def test_latin1_patch_keeps_its_bytes_and_digest(tmp_path):
    latin1 = diff("wc.py", WC, WC_FIXED).encode() + b"+# caf\xe9\n"
    latin1 = latin1.replace(b"@@ -1,2 +1,2 @@", b"@@ -1,2 +1,3 @@")
    src = python_task(tmp_path / "wc", panel=[{"id": "reference", "label": "valid", "reference": True, "diff": latin1}])
    task = import_task("terminal-bench", src, tmp_path / "out")
    assert task.candidates[0].source.read_bytes() == latin1
    assert task.candidates[0].sha256 == hashlib.sha256(latin1).hexdigest()


def test_a_suite_that_is_not_utf8_is_named(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "tests" / "test_outputs.py").write_bytes(WC_TEST.encode() + b"# caf\xe9\n")
    err = _error(tmp_path, src)
    assert err.file.endswith("tests/test_outputs.py") and "not UTF-8" in err.problem and "0xe9" in err.problem
    assert "test_outputs.py" in _cli_error(tmp_path, "terminal-bench", str(src))


def test_crlf_patch_against_a_crlf_file(tmp_path):
    crlf = WC.replace("\n", "\r\n").encode()
    patch = diff("wc.py", WC, WC_FIXED).replace("\n", "\r\n").encode()
    src = python_task(
        tmp_path / "wc", wc=crlf, panel=[{"id": "reference", "label": "valid", "reference": True, "diff": patch}]
    )
    dest = tmp_path / "out"
    task = import_task("terminal-bench", src, dest)
    assert (dest / "initial" / "wc.py").read_bytes() == crlf
    assert task.candidates[0].source.read_bytes() == patch
    assert task.candidates[0].sha256 == hashlib.sha256(patch).hexdigest()
    code, report = run_report(dest, dest / "tests" / "test_outputs.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail" and verdicts(report) == {"reference": "pass"} and code == 0


def test_an_empty_patch_changes_nothing(tmp_path):
    src = python_task(
        tmp_path / "wc",
        panel=[
            {"id": "reference", "label": "valid", "reference": True, "diff": diff("wc.py", WC, WC_FIXED)},
            {"id": "nothing", "label": "valid", "diff": ""},
            {"id": "prose", "label": "invalid", "diff": "I changed nothing\n"},
        ],
    )
    err = _error(tmp_path, src)
    assert err.key == "candidate[1] (nothing).patch" and "empty: it changes nothing" in err.problem
    manifest = tmp_path / "wc.patch-set" / "patch-set.toml"
    text = manifest.read_text()
    manifest.write_text(
        text[: text.index("[[candidate]]", text.index('id = "nothing"') - 20)]
        + text[text.index('[[candidate]]\nid = "prose"') :]
    )
    err = _error(tmp_path, src)
    assert err.key.endswith("(prose).patch") and "changes nothing" in err.problem


# -- symlinks: refused by name when they leave the task, kept when safe ------------------


def test_symlink_to_a_host_file_is_refused_by_name(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "passwd").symlink_to("/etc/passwd")
    err = _error(tmp_path, src)
    assert err.file.endswith("wc/passwd") and "/etc/passwd" in err.problem
    assert "passwd" in _cli_error(tmp_path, "terminal-bench", str(src))


def test_symlink_in_tests_leaving_the_task_is_refused(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "tests" / "leak.txt").symlink_to("../../../../../../etc/hostname")
    err = _error(tmp_path, src)
    assert err.file.endswith("tests/leak.txt") and "points outside" in err.problem


def test_symlinked_folder_to_the_host_is_refused(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "leakdir").symlink_to("/etc")
    err = _error(tmp_path, src)
    assert err.file.endswith("wc/leakdir") and "absolute" in err.problem


def test_relative_symlink_inside_the_task_is_kept(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "lib").mkdir()
    (src / "lib" / "wc.py").symlink_to("../wc.py")
    import_task("terminal-bench", src, tmp_path / "out")
    assert os.readlink(tmp_path / "out" / "initial" / "lib" / "wc.py") == "../wc.py"


# -- task.yaml fields ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["pytset", "3", "[pytest]"])
def test_parser_name_must_be_a_known_parser(tmp_path, value):
    src = python_task(tmp_path / "wc")
    (src / "task.yaml").write_text(f"instruction: Count words.\nparser_name: {value}\n")
    err = _error(tmp_path, src)
    assert err.key == "parser_name" and "expected one of pytest, swebench" in err.problem


@pytest.mark.parametrize("value", ["true", "0", "-5", "soon"])
def test_max_test_timeout_must_be_a_positive_number(tmp_path, value):
    src = python_task(tmp_path / "wc")
    (src / "task.yaml").write_text(f"instruction: Count words.\nmax_test_timeout_sec: {value}\n")
    err = _error(tmp_path, src)
    assert err.key == "max_test_timeout_sec" and "expected a positive number" in err.problem


def test_compose_only_task_is_refused_unless_an_image_is_given(tmp_path):
    src = python_task(tmp_path / "wc")
    (src / "Dockerfile").unlink()
    (src / "docker-compose.yaml").write_text("services:\n  client:\n    build: .\n")
    err = _error(tmp_path, src)
    assert err.file.endswith("docker-compose.yaml") and "not supported" in err.problem and "--image" in err.problem
    task = import_task("terminal-bench", src, tmp_path / "img", image="prism-python:local")
    assert task.image == "prism-python:local" and task.dockerfile is None
    task = import_task("terminal-bench", src, tmp_path / "none", use_docker=False)
    assert task.image is None and task.dockerfile is None


# -- Harbor: the reward file, and Python suites ---------------------------------------

HARBOR_TEMPLATE = """#!/bin/bash
# As Harbor's task template does: always exit 0, the reward file carries the verdict.
mkdir -p /logs/verifier
. tests/expect.sh
if ( expect "$(sh greet.sh World)" "Hello, World!" ); then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""
HARBOR_JSON = HARBOR_TEMPLATE.replace(
    "echo 1 > /logs/verifier/reward.txt", """echo '{"reward": 1.0}' > /logs/verifier/reward.json"""
).replace("echo 0 > /logs/verifier/reward.txt", """echo '{"reward": 0.0}' > /logs/verifier/reward.json""")


@pytest.mark.parametrize("script", [HARBOR_TEMPLATE, HARBOR_JSON], ids=["reward.txt", "reward.json"])
def test_harbor_verdict_comes_from_the_reward_file(tmp_path, script):
    src = harbor(tmp_path / "greet")
    (src / "tests" / "test.sh").write_text(script)
    dest = tmp_path / "out"
    import_task("harbor", src, dest)
    code, report = run_report(dest, dest / "tests" / "test.sh", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"  # exit status 0, reward 0
    assert verdicts(report) == {"reference": "pass", "printf": "pass", "no-bang": "fail"}
    assert code == 0


HARBOR_PY = """import subprocess


def test_greets_with_a_comma_and_a_bang():
    out = subprocess.run(["sh", "greet.sh", "World"], capture_output=True, text=True).stdout
    assert out == "Hello, World!\\n"
"""


def test_harbor_python_suite_runs_with_pytest(tmp_path):
    src = harbor(tmp_path / "greet")
    write(src, {"tests/test_outputs.py": HARBOR_PY})
    dest = tmp_path / "out"
    task = import_task("harbor", src, dest, suite="tests/test_outputs.py")
    assert task.test_command is None  # Prism runs it with pytest itself, not `bash tests/test_outputs.py`
    assert (dest / "initial" / "tests" / "test.sh").is_file()
    code, report = run_report(dest, dest / "tests" / "test_outputs.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "printf": "pass", "no-bang": "fail"} and code == 0


def test_python_suite_pytest_would_not_collect_runs_through_pytest(tmp_path):
    src = harbor(tmp_path / "greet")
    write(src, {"tests/check.py": HARBOR_PY})
    task = import_task("harbor", src, tmp_path / "out", suite="tests/check.py")
    assert task.test_command.startswith("python3 -m pytest") and task.test_command.endswith("tests/check.py")

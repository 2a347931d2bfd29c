"""Terminal-Bench and Harbor folders with patch sets: imported, then judged end to end by `prism run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import load_task
from prism_lsp.tasks.importers import TaskImportError, import_task
from tests.importers.helpers import diff, patch_set, prism, run_report, verdicts, write

WC_BUGGY = "#!/bin/bash\n# Print the number of words in the file $1.\nwc -l < \"$1\"\n"
WC_FIXED = "#!/bin/bash\n# Print the number of words in the file $1.\nwc -w < \"$1\" | tr -d ' '\n"
WC_AWK = "#!/bin/bash\n# Print the number of words in the file $1.\nawk '{n += NF} END {print n + 0}' \"$1\"\n"
WC_CHARS = "#!/bin/bash\n# Print the number of words in the file $1.\nwc -c < \"$1\" | tr -d ' '\n"

TB_TEST = '''
import subprocess
from pathlib import Path


def words(text, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(text)
    out = subprocess.run(["bash", "wc_words.sh", str(f)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_counts_words_across_lines(tmp_path):
    assert words("one two\\nthree\\n", tmp_path) == 3


def test_empty_file(tmp_path):
    assert words("", tmp_path) == 0
'''


def terminal_bench(root: Path, *, parser: str = "pytest") -> Path:
    write(root, {
        "task.yaml": f"instruction: |\n  Fix wc_words.sh so it prints the number of words in a file.\n"
                     f"author_email: someone@example.com\ndifficulty: easy\nparser_name: {parser}\n"
                     "max_test_timeout_sec: 30\n",
        "Dockerfile": "FROM prism-python:local\nWORKDIR /app\nCOPY wc_words.sh /app/\n",
        "docker-compose.yaml": "services:\n  client:\n    build: .\n",
        "solution.sh": "#!/bin/bash\nsed -i 's/wc -l/wc -w/' wc_words.sh\n",
        "run-tests.sh": '#!/bin/bash\nset -e\nout=$(printf "a b\\nc\\n" > /tmp/in.txt && bash wc_words.sh /tmp/in.txt)\n'
                        '[ "$out" = 3 ]\n',
        "tests/test_outputs.py": TB_TEST,
        "wc_words.sh": WC_BUGGY,
    })
    patch_set(root / "patch-set", [
        {"id": "reference", "label": "valid", "reference": True, "diff": diff("wc_words.sh", WC_BUGGY, WC_FIXED)},
        {"id": "awk", "label": "valid", "diff": diff("wc_words.sh", WC_BUGGY, WC_AWK)},
        {"id": "counts-chars", "label": "invalid", "diff": diff("wc_words.sh", WC_BUGGY, WC_CHARS)},
    ])
    return root


GREET_BUGGY = "#!/bin/sh\necho \"Hello $1\"\n"
GREET_FIXED = "#!/bin/sh\necho \"Hello, $1!\"\n"
GREET_PRINTF = "#!/bin/sh\nprintf 'Hello, %s!\\n' \"$1\"\n"
GREET_NO_BANG = "#!/bin/sh\necho \"Hello, $1\"\n"


def harbor(root: Path) -> Path:
    write(root, {
        "task.toml": 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 20.0\n'
                     "[agent]\ntimeout_sec = 600.0\n",
        "instruction.md": "Make `greet.sh NAME` print `Hello, NAME!`.\n",
        "environment/Dockerfile": "FROM prism-python:local\nWORKDIR /app\nCOPY greet.sh /app/\n",
        "environment/greet.sh": GREET_BUGGY,
        "solution/solve.sh": "#!/bin/sh\nprintf '#!/bin/sh\\necho \"Hello, $1!\"\\n' > greet.sh\n",
        "tests/test.sh": '#!/bin/sh\n. tests/expect.sh\nexpect "$(sh greet.sh World)" "Hello, World!"\n',
        "tests/expect.sh": 'expect() { [ "$1" = "$2" ] || { echo "got [$1], want [$2]"; exit 1; }; }\n',
    })
    patch_set(root.parent / f"{root.name}.patch-set", [
        {"id": "reference", "label": "valid", "reference": True, "diff": diff("greet.sh", GREET_BUGGY, GREET_FIXED)},
        {"id": "printf", "label": "valid", "diff": diff("greet.sh", GREET_BUGGY, GREET_PRINTF)},
        {"id": "no-bang", "label": "invalid", "diff": diff("greet.sh", GREET_BUGGY, GREET_NO_BANG)},
    ], fmt="json")
    return root


def test_terminal_bench_pytest_task_runs_end_to_end(tmp_path):
    src = terminal_bench(tmp_path / "word-count")
    proc = prism("import", "terminal-bench", str(src), str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert "3 candidates (2 valid, 1 invalid)" in proc.stdout
    task = load_task(tmp_path / "out")
    assert task.id == "word-count" and task.timeout_s == 30 and task.test_command is None
    assert task.dockerfile is not None and task.dockerfile.read_text().startswith("FROM prism-python:local")
    assert (tmp_path / "out" / "initial" / "wc_words.sh").read_text() == WC_BUGGY
    assert not (tmp_path / "out" / "initial" / "task.yaml").exists()
    assert all(c.sha256 for c in task.candidates)
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "tests" / "test_outputs.py", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "awk": "pass", "counts-chars": "fail"}
    assert code == 0 and report["metrics"]["jsf"] is True


def test_terminal_bench_with_a_shell_test_command(tmp_path):
    src = terminal_bench(tmp_path / "word-count", parser="swebench")
    task = import_task("terminal-bench", src, tmp_path / "out")
    assert task.test_command == 'TEST_DIR="$PWD/tests" bash run-tests.sh'
    assert (tmp_path / "out" / "initial" / "tests" / "test_outputs.py").is_file()
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "run-tests.sh", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "awk": "pass", "counts-chars": "fail"}
    assert code == 0


def test_harbor_task_runs_end_to_end_with_its_test_script(tmp_path):
    src = harbor(tmp_path / "greet")
    proc = prism("import", "harbor", str(src), str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    task = load_task(tmp_path / "out")
    # Judged as Harbor judges: by the reward file when test.sh writes one (this one does not: exit status).
    assert 'bash "$v/../test.sh"' in task.test_command and "tests/test.sh" in task.test_command
    assert task.timeout_s == 20
    assert (tmp_path / "out" / "initial" / "greet.sh").read_text() == GREET_BUGGY
    assert (tmp_path / "out" / "initial" / "tests" / "expect.sh").is_file()
    assert not (tmp_path / "out" / "initial" / "Dockerfile").exists()
    code, report = run_report(tmp_path / "out", tmp_path / "out" / "tests" / "test.sh", tmp_path / "cache")
    assert report["baseline"]["outcome"] == "fail"
    assert verdicts(report) == {"reference": "pass", "printf": "pass", "no-bang": "fail"}
    assert code == 0


def test_harbor_with_image_instead_of_dockerfile(tmp_path):
    task = import_task("harbor", harbor(tmp_path / "greet"), tmp_path / "out", image="prism-python:local")
    assert task.image == "prism-python:local" and task.dockerfile is None


# -- bad variants: precise errors, nothing written ---------------------------------

def _expect(tmp_path, src, fmt="terminal-bench", **options) -> TaskImportError:
    with pytest.raises(TaskImportError) as err:
        import_task(fmt, src, tmp_path / "out", **options)
    assert not (tmp_path / "out").exists()
    assert isinstance(err.value, ManifestError)
    return err.value


def test_missing_task_yaml(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "task.yaml").unlink()
    err = _expect(tmp_path, src)
    assert err.key == "task.yaml" and "missing task.yaml" in err.problem


def test_missing_instruction(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "task.yaml").write_text("parser_name: pytest\n")
    err = _expect(tmp_path, src)
    assert err.file.endswith("task.yaml") and err.key == "instruction"


def test_missing_harbor_test_script(tmp_path):
    src = harbor(tmp_path / "g")
    (src / "tests" / "test.sh").unlink()
    err = _expect(tmp_path, src, "harbor")
    assert "missing test script" in err.problem and "tests/test.sh" in err.problem


def test_missing_patch_set(tmp_path):
    src = terminal_bench(tmp_path / "t")
    import shutil

    shutil.rmtree(src / "patch-set")
    err = _expect(tmp_path, src)
    assert err.key == "patch-set" and "--patch-set" in err.problem


def test_missing_patch_file(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "awk.diff").unlink()
    err = _expect(tmp_path, src)
    assert err.file.endswith("patch-set.toml")
    assert err.key == "candidate[1] (awk).patch" and "'awk.diff' does not exist" in err.problem


def test_wrong_digest(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "counts-chars.diff").write_text(diff("wc_words.sh", WC_BUGGY, WC_AWK))
    err = _expect(tmp_path, src)
    assert err.key == "candidate[2] (counts-chars).sha256" and "digest mismatch" in err.problem


def test_patch_that_does_not_apply(tmp_path):
    src = harbor(tmp_path / "g")
    pset = tmp_path / "g.patch-set"
    data = json.loads((pset / "patch-set.json").read_text())
    bad = diff("greet.sh", "#!/bin/sh\necho \"Bonjour $1\"\n", GREET_FIXED)
    (pset / "printf.diff").write_text(bad)
    import hashlib

    data["candidates"][1]["sha256"] = hashlib.sha256(bad.encode()).hexdigest()
    (pset / "patch-set.json").write_text(json.dumps(data))
    err = _expect(tmp_path, src, "harbor")
    assert err.key == "candidate[1] (printf).patch"
    assert "does not apply to the initial state" in err.problem and "greet.sh" in err.problem


def test_two_references(tmp_path):
    src = terminal_bench(tmp_path / "t")
    manifest = src / "patch-set" / "patch-set.toml"
    manifest.write_text(manifest.read_text().replace('id = "awk"', 'id = "awk"\nreference = true'))
    err = _expect(tmp_path, src)
    assert err.key == "reference" and "expected exactly one reference, found 2 (reference, awk)" in err.problem


def test_destination_not_empty(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(TaskImportError, match="not empty"):
        import_task("terminal-bench", src, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


def test_cli_reports_import_errors_with_status_2(tmp_path):
    src = terminal_bench(tmp_path / "t")
    (src / "patch-set" / "awk.diff").unlink()
    proc = prism("import", "terminal-bench", str(src), str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "candidate[1] (awk).patch" in proc.stderr and "does not exist" in proc.stderr

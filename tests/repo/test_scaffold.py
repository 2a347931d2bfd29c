"""`prism init --scaffold DIR --reference FILE`: a function-level task folder for a teacher."""

from __future__ import annotations

import textwrap

from prism_lsp.tasks import load_task
from tests.repo.gitrepo import prism, run_json

REFERENCE = textwrap.dedent('''\
    """Durations."""


    def whole_minutes(seconds: int) -> int:
        """The number of whole minutes in `seconds`."""
        return seconds // 60


    def one_liner(x): return x + 1


    class Clock:
        def tick(self, n):
            return n + 1
''')


def test_scaffold_makes_a_loadable_task_whose_stub_fails_and_reference_passes(tmp_path, capsys):
    ref = tmp_path / "minutes.py"
    ref.write_text(REFERENCE)
    dest = tmp_path / "task"
    code, out, err = prism(
        capsys,
        "init",
        "--scaffold",
        str(dest),
        "--reference",
        str(ref),
        "--statement",
        "Return the number of whole minutes.",
    )
    assert code == 0, err
    task = load_task(dest)
    assert task.id == "minutes" and task.statement == "Return the number of whole minutes."
    assert [c.id for c in task.candidates] == ["reference"] and task.reference.kind == "overlay"
    assert (dest / "candidates" / "reference" / "minutes.py").read_text() == REFERENCE
    stub = (dest / "initial" / "minutes.py").read_text()
    assert '"""The number of whole minutes in `seconds`."""\n    raise NotImplementedError' in stub
    assert "def one_liner(x):\n    raise NotImplementedError" in stub and "seconds // 60" not in stub
    assert (dest / "verifier" / "test_verifier.py").is_file()
    suite = dest / "suites" / "test_minutes.py"
    assert suite.read_text().startswith("from minutes import whole_minutes, one_liner\n")
    # The teacher writes a test; it runs at once against the stub and the reference.
    suite.write_text(suite.read_text() + "\n\ndef test_minutes():\n    assert whole_minutes(125) == 2\n")
    report = run_json(capsys, suite, "--cache-dir", str(tmp_path / "cache"))
    assert report["baseline"]["outcome"] == "fail" and report["metrics"]["rar"] is True


def test_scaffold_refuses_bad_input_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "consts.py").write_text("X = 1\n")
    (tmp_path / "good.py").write_text("def f():\n    return 1\n")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    cases = [
        (["--scaffold", str(tmp_path / "t1")], "--scaffold DIR needs --reference FILE"),
        (["--scaffold", str(tmp_path / "t2"), "--reference", str(tmp_path / "broken.py")], "not valid Python (line 1"),
        (["--scaffold", str(tmp_path / "t3"), "--reference", str(tmp_path / "consts.py")], "defines no function"),
        (
            ["--scaffold", str(tmp_path / "t4"), "--reference", str(tmp_path / "missing.py")],
            "cannot read the reference",
        ),
        (
            ["--scaffold", str(tmp_path / "taken"), "--reference", str(tmp_path / "good.py")],
            "destination exists and is not empty",
        ),
    ]
    for args, match in cases:
        code, _, err = prism(capsys, "init", *args)
        assert code == 2 and match in err, (args, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.py", "consts.py", "good.py", "taken"]
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["file"]

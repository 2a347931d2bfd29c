"""`prism doctor` and README state the threat model and each backend's guarantees; a task folder
(untrusted) cannot choose to run its candidates unisolated."""

import json

from prism_lsp.cli import prism_main
from prism_lsp.sandbox.guarantees import GUARANTEES, TRUSTED, UNTRUSTED, WITHOUT_SECCOMP
from tests.conftest import ROOT, write_task


def test_doctor_prints_who_is_trusted_and_what_each_sandbox_guarantees(capsys):
    assert prism_main(["doctor", "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["threat_model"]
    assert model["trusted"] == TRUSTED and "task folders" in model["untrusted"]
    assert set(model["guarantees"]) == {"bubblewrap", "docker", "none"}
    assert model["guarantees"]["none"][0].startswith("nothing")
    assert prism_main(["doctor"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    for lines in GUARANTEES.values():
        for line in lines:
            assert " ".join(line.split()) in text, line


def test_readme_states_the_same_threat_model_and_guarantees():
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"Trusted: {TRUSTED}." in readme and f"Untrusted: {UNTRUSTED}." in readme
    for lines in [*GUARANTEES.values(), WITHOUT_SECCOMP.values()]:  # and what holds off x86_64/aarch64
        for line in lines:
            assert line in readme, line


def test_a_task_folder_cannot_choose_sandbox_none(tmp_path, capsys):
    root = write_task(
        tmp_path / "task",
        extra_task='sandbox = "none"\n',
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[{"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}}],
        suites={"tests/test_f.py": "from solution import f\n\ndef test_f():\n    assert f() == 2\n"},
    )
    code = prism_main(["run", str(root), str(root / "tests" / "test_f.py")])
    err = capsys.readouterr().err
    assert code == 2 and "task.sandbox" in err and "--sandbox none" in err, err
    # Whoever starts Prism may still choose it.
    assert prism_main(["run", str(root), str(root / "tests" / "test_f.py"), "--sandbox", "none"]) == 0


def test_doctor_and_readme_say_what_each_reveal_level_lets_an_adaptive_author_infer(capsys):
    from prism_lsp.model.reveal import INFERABLE, REVEAL_LEVELS

    assert list(INFERABLE) == list(REVEAL_LEVELS)
    assert prism_main(["doctor", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reveal_levels"] == INFERABLE
    assert prism_main(["doctor"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    readme = " ".join((ROOT / "README.md").read_text().split())
    for level, inferable in INFERABLE.items():
        assert f"{level}: {inferable}" in text
        assert f"`{level}`: {inferable}." in readme
    assert "about 20 runs" in INFERABLE["counts"] and "initial program" in INFERABLE["sealed"]

"""The manifest's panel keys: `[verifier] suite` and a candidate's `origin`."""

import pytest

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import load_task
from tests.model.manifests import GOOD_CANDIDATES, TASK, make


def test_verifier_and_origin_load(tmp_path):
    (tmp_path / "verifier").mkdir()
    (tmp_path / "verifier" / "test_judge.py").write_text("def test_x():\n    pass\n")
    task = load_task(
        make(
            tmp_path,
            TASK
            + '[verifier]\nsuite = "verifier/test_judge.py"\n'
            + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "bad"\norigin = "mutant"'),
        )
    )
    assert task.verifier == (tmp_path / "verifier" / "test_judge.py").resolve()
    assert task.verifier_rel == "verifier/test_judge.py"
    assert [c.origin for c in task.candidates] == ["hand", "mutant"]


@pytest.mark.parametrize(
    "extra,key,text",
    [
        ('[verifier]\nsuite = "verifier/missing.py"\n', "verifier.suite", "does not exist"),
        ('[verifier]\nsuite = "../outside.py"\n', "verifier.suite", "leaves the task folder"),
        ('[verifier]\nsuit = "x.py"\n', "verifier.suite", "missing required key"),
        ("[verifier]\nsuite = 3\n", "verifier.suite", "expected a string"),
    ],
)
def test_bad_verifier_is_named(tmp_path, extra, key, text):
    with pytest.raises(ManifestError) as err:
        load_task(make(tmp_path, TASK + extra + GOOD_CANDIDATES))
    assert err.value.key == key and text in err.value.problem


def test_bad_origin_is_named(tmp_path):
    with pytest.raises(ManifestError) as err:
        load_task(make(tmp_path, TASK + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "bad"\norigin = "llm"')))
    assert err.value.key == "candidate[1] (bad).origin" and "'llm'" in err.value.problem


def test_the_verifier_is_never_a_suite_under_judgement():
    from prism_lsp.tasks.suites import not_a_suite
    from tests.conftest import FIXTURES

    task = load_task(FIXTURES / "top-tags")
    assert "verifier" in not_a_suite(task.verifier, task)
    assert not_a_suite(FIXTURES / "top-tags" / "suites" / "test_strong.py", task) is None

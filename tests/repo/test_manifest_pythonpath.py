"""The manifest's `pythonpath` (import roots put first on the runner's sys.path): loaded, and checked."""

from __future__ import annotations

import pytest

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import load_task
from tests.conftest import write_task

REF = [{"id": "ref", "reference": True, "files": {"m.py": "X = 1\n"}}]


def test_pythonpath_reaches_the_task(tmp_path):
    task = load_task(
        write_task(
            tmp_path / "t", initial={"m.py": "X = 0\n"}, candidates=REF, extra_task='pythonpath = ["src", "lib/py"]'
        )
    )
    assert task.pythonpath == ("src", "lib/py")


@pytest.mark.parametrize("value", ['["../up"]', '["/abs"]', '[""]', '"src"'])
def test_pythonpath_outside_the_tree_or_not_a_list_is_refused(tmp_path, value):
    root = write_task(tmp_path / "t", initial={"m.py": "X = 0\n"}, candidates=REF, extra_task=f"pythonpath = {value}")
    with pytest.raises(ManifestError, match=r"task\.pythonpath"):
        load_task(root)

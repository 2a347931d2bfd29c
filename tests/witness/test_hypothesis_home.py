"""Drawing witness inputs with Hypothesis writes nothing into the working folder (for the language
server, the author's project): Hypothesis's own files go to Prism's cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DRAW = """
from pathlib import Path
from prism_lsp.witness.strategies import examples
drawn = examples([("ab",)], Path("initial"), "solution", "shout", count=30)
assert drawn and all(isinstance(args[0], str) for args in drawn), drawn
"""


def test_drawing_text_inputs_writes_nothing_into_the_working_folder(tmp_path):
    project = tmp_path / "project"
    (project / "initial").mkdir(parents=True)
    (project / "initial" / "solution.py").write_text("def shout(text: str) -> str:\n    return text.upper()\n")
    cache = tmp_path / "cache"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PRISM_CACHE_DIR": str(cache), "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", DRAW], cwd=project, env=env, check=True, timeout=120)
    assert sorted(p.name for p in project.iterdir()) == ["initial"]

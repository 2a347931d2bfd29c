"""Manifests the model's and the panel's tests both build on: a good candidate table, a task table,
and a task folder made from them."""

import textwrap

GOOD_CANDIDATES = """
[[candidate]]
id = "reference"
label = "valid"
reference = true
patch = "ref.diff"

[[candidate]]
id = "bad"
label = "invalid"
overlay = "bad"
"""


def make(tmp_path, toml: str, *, files=("ref.diff",), dirs=("initial", "bad")):
    for d in dirs:
        (tmp_path / d).mkdir(exist_ok=True)
    for f in files:
        (tmp_path / f).write_text("--- a/x.py\n+++ b/x.py\n@@ -0,0 +1 @@\n+x = 1\n")
    (tmp_path / "prism.toml").write_text(textwrap.dedent(toml))
    return tmp_path


TASK = '[task]\nid = "ok-task"\ninitial = "initial"\n'

"""Building candidate trees on the host: correct, cached, and safe against hostile diffs/overlays."""

import os
import stat
from pathlib import Path

import pytest

from prism_lsp.materialize import MaterializeError, TreeCache
from prism_lsp.materialize.digest import tree_digest
from prism_lsp.tasks import load_task
from tests.conftest import write_task

INITIAL = {"solution.py": "def f(x):\n    return x\n", "helpers/util.py": "K = 1\n"}
GOOD_PATCH = """\
--- a/solution.py
+++ b/solution.py
@@ -1,2 +1,2 @@
 def f(x):
-    return x
+    return x + 1
"""


def task_with(tmp_path, patch=None, files=None):
    cand = {"id": "cand", "label": "invalid"}
    if patch is not None:
        cand["patch"] = patch
    else:
        cand["files"] = files or {}
    root = write_task(
        tmp_path / "task",
        initial=INITIAL,
        candidates=[{"id": "reference", "reference": True, "patch": GOOD_PATCH}, cand],
    )
    return load_task(root)


def snapshot(path):
    return {p: (p.stat().st_size, p.read_bytes()) for p in path.rglob("*") if p.is_file()}


def test_patch_builds_tree_and_records_changed_lines(tmp_path):
    task = task_with(tmp_path, patch=GOOD_PATCH)
    tree = TreeCache(tmp_path / "cache").candidate(task, task.reference)
    assert (tree.path / "solution.py").read_text() == "def f(x):\n    return x + 1\n"
    assert (tree.path / "helpers" / "util.py").read_text() == "K = 1\n"
    assert tree.changed == {"solution.py": (2,)}


def test_overlay_changed_lines_come_from_a_real_diff(tmp_path):
    task = task_with(tmp_path, files={"solution.py": "def f(x):\n    y = x * 2\n    return y\n"})
    tree = TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))
    assert tree.changed == {"solution.py": (2, 3)}


def test_tree_is_built_once_and_reused(tmp_path):
    task = task_with(tmp_path, patch=GOOD_PATCH)
    cache = TreeCache(tmp_path / "cache")
    first = cache.candidate(task, task.reference)
    mtime = first.path.stat().st_mtime_ns
    again = TreeCache(tmp_path / "cache").candidate(task, task.reference)  # a new process sees the same tree
    assert again.path == first.path and again.path.stat().st_mtime_ns == mtime
    # The candidate's tree and the initial state's, whose files it shares (materialize/shared.py).
    assert len(list((tmp_path / "cache" / "trees").iterdir())) == 2


def test_changing_the_initial_state_builds_a_new_tree(tmp_path):
    task = task_with(tmp_path, patch=GOOD_PATCH)
    cache = TreeCache(tmp_path / "cache")
    first = cache.candidate(task, task.reference)
    (task.initial / "helpers" / "util.py").write_text("K = 2\n")
    second = cache.candidate(task, task.reference)
    assert second.digest != first.digest
    assert (second.path / "helpers" / "util.py").read_text() == "K = 2\n"


def test_a_diff_that_does_not_apply_names_the_file_and_hunk(tmp_path):
    bad = GOOD_PATCH.replace("-    return x\n", "-    return x * 3\n")
    task = task_with(tmp_path, patch=bad)
    with pytest.raises(MaterializeError) as info:
        TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))
    msg = str(info.value)
    assert "cand" in msg and "solution.py" in msg and ("hunk" in msg.lower() or ":1" in msg)


@pytest.mark.parametrize(
    "path,expected",
    [
        ("../escape.py", "escapes the tree"),
        ("../../../tmp/prism-escape.py", "escapes the tree"),
        ("/tmp/prism-absolute.py", "absolute path"),
        (".git/hooks/post-checkout", "writes into .git"),
    ],
)
def test_diff_paths_that_leave_the_tree_are_refused(tmp_path, path, expected):
    evil = f"--- /dev/null\n+++ {'b/' + path if not path.startswith('/') else path}\n@@ -0,0 +1 @@\n+pwned = True\n"
    task = task_with(tmp_path, patch=evil)
    before = snapshot(tmp_path)
    with pytest.raises(MaterializeError, match=expected):
        TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))
    assert not os.path.exists("/tmp/prism-absolute.py") and not os.path.exists("/tmp/prism-escape.py")
    after = {p: v for p, v in snapshot(tmp_path).items() if "cache" not in p.parts}
    assert after == {p: v for p, v in before.items() if "cache" not in p.parts}


def test_a_diff_creating_a_symlink_is_refused(tmp_path):
    evil = (
        "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n"
        "@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n"
    )
    task = task_with(tmp_path, patch=evil)
    with pytest.raises(MaterializeError, match="symlink"):
        TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))


def test_an_overlay_holding_a_symlink_to_a_host_file_is_refused(tmp_path):
    task = task_with(tmp_path, files={"solution.py": "x = 1\n"})
    os.symlink("/etc/passwd", task.candidate("cand").source / "passwd")
    with pytest.raises(MaterializeError, match="symlink"):
        TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))
    assert not list((tmp_path / "cache" / "trees").glob("*/tree/passwd"))


def test_an_overlay_holding_a_device_node_is_refused(tmp_path):
    task = task_with(tmp_path, files={"solution.py": "x = 1\n"})
    node = task.candidate("cand").source / "dev"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        os.mkfifo(node)  # without CAP_MKNOD a fifo is the special file we can make
    with pytest.raises(MaterializeError, match="not a regular file"):
        TreeCache(tmp_path / "cache").candidate(task, task.candidate("cand"))


def test_materializing_never_writes_to_the_task_folder(tmp_path):
    task = task_with(tmp_path, patch=GOOD_PATCH)
    before = tree_digest(task.root)
    cache = TreeCache(tmp_path / "cache")
    cache.baseline(task)
    for c in task.candidates:
        cache.candidate(task, c)
    assert tree_digest(task.root) == before


def test_a_cached_tree_changed_on_disk_is_never_used_again(tmp_path):
    """An editor or a person writing into the tree cache cannot change a later verdict."""
    task = load_task(Path(__file__).resolve().parents[2] / "fixtures" / "mean-rounded")
    cand = task.candidate("half-even")
    cache = TreeCache(tmp_path)
    first = cache.candidate(task, cand)
    solution = first.path / "solution.py"
    original = solution.read_text()
    solution.chmod(0o644)
    solution.write_text("def mean_rounded(values):\n    return 42\n")
    for reader in (cache, TreeCache(tmp_path)):  # the process that built it, and a new one
        again = reader.candidate(task, cand)
        assert (again.path / "solution.py").read_text() == original
        assert again.changed == first.changed


def test_a_tree_looked_at_within_a_second_is_not_walked_again_and_an_edit_after_is_caught(tmp_path, monkeypatch):
    """A panel run asks for each tree a few times; its files are looked at once a second at most,
    and an edit is caught at the next look."""
    from prism_lsp.materialize import cache as cache_module

    task = load_task(Path(__file__).resolve().parents[2] / "fixtures" / "mean-rounded")
    cand = task.candidate("half-even")
    cache = TreeCache(tmp_path)
    now = [1000.0]
    monkeypatch.setattr(cache_module.time, "monotonic", lambda: now[0])
    built = cache.candidate(task, cand)
    cache.candidate(task, cand)  # looked at: intact
    walks = []
    real = cache_module._stat_signature
    monkeypatch.setattr(cache_module, "_stat_signature", lambda root: walks.append(root) or real(root))
    cache.candidate(task, cand)
    assert [w for w in walks if w.is_relative_to(tmp_path)] == []  # the author's folder is looked at each time
    solution = built.path / "solution.py"
    original = solution.read_text()
    solution.chmod(0o644)
    solution.write_text("def mean_rounded(values):\n    return 42\n")
    now[0] += cache_module.RELOOK_S
    assert (cache.candidate(task, cand).path / "solution.py").read_text() == original

"""The runner's clean-up between programs (`_prism_cleanup`), on a real file system: any depth,
any permissions, never through a link, and what cannot be removed is reported, not skipped."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "prism_lsp" / "runner"))
from _prism_cleanup import CleanupFailed, SharedFolders, remove_tree  # noqa: E402


def test_a_folder_three_thousand_deep_with_locked_folders_is_removed(tmp_path):
    top = tmp_path / "deep"
    top.mkdir()
    cwd = os.getcwd()
    os.chdir(top)
    try:
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        Path("leaf").write_text("x")
    finally:
        os.chdir(cwd)
    locked = top / "d" / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "f").write_text("x")
    os.chmod(locked / "inner", 0)
    os.chmod(locked, 0)
    remove_tree(str(top))
    assert not top.exists()
    assert os.getcwd() == cwd


def test_a_link_is_removed_never_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    top = tmp_path / "top"
    top.mkdir()
    (top / "link").symlink_to(outside)
    remove_tree(str(top))
    assert not top.exists() and (outside / "keep").exists()


def test_what_cannot_be_removed_is_reported(tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    shared = SharedFolders(str(scratch))
    shared.before = {str(scratch): set()}
    (scratch / "left").mkdir()
    (scratch / "left" / "f").write_text("x")
    os.chmod(scratch, 0o500)  # the folder holding it cannot be written: `left` cannot go
    try:
        if os.access(scratch, os.W_OK) and os.getuid() == 0 and _has_dac_override():
            pytest.skip("running with CAP_DAC_OVERRIDE: permissions cannot make removal fail")
        with pytest.raises(CleanupFailed, match="left"):
            shared.forget()
    finally:
        os.chmod(scratch, 0o700)


def _has_dac_override() -> bool:
    with open("/proc/self/status") as fh:
        caps = next(int(line.split()[1], 16) for line in fh if line.startswith("CapEff"))
    return bool(caps & (1 << 1))

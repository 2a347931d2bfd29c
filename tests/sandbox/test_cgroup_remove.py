"""Removing a sandbox's cgroup twice (its worker and the pool's close() kill a runner at once)."""

from __future__ import annotations

import pytest

from prism_lsp.sandbox import cgroup
from prism_lsp.sandbox.cgroup import Cgroup


def test_a_cgroup_already_removed_is_not_waited_for(tmp_path, monkeypatch):
    gone = tmp_path / "prism-gone"  # never created: what the other killer left

    def no_waiting(_seconds):
        raise AssertionError("remove() waited for a cgroup that no longer exists")

    monkeypatch.setattr(cgroup.time, "sleep", no_waiting)
    Cgroup([gone], "v2").remove()


def test_a_real_cgroup_is_removed_and_a_second_remove_is_a_no_op():
    group = Cgroup.create(memory_bytes=64 << 20, pids_max=16)
    if group is None:
        pytest.skip("this machine gives no writable cgroup")
    group.remove()
    assert not any(d.exists() for d in group.dirs)
    group.remove()

"""Safe extraction of a repository archive, with and without Python's extraction filters
(Debian 12's Python 3.11.2 has none: `tarfile.data_filter` arrived in 3.11.4)."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from prism_lsp.tasks.importers.safe_tar import UnsafeMember, extract_all


def archive(*members: tuple[str, str, str]) -> tarfile.TarFile:
    """A tar of (kind, name, data-or-link) members: kind is file, dir, symlink, hardlink or fifo."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for kind, name, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size, info.mode = len(data), 0o4777  # set-uid and world-writable: both dropped
                tar.addfile(info, io.BytesIO(data.encode()))
                continue
            info.type = {
                "dir": tarfile.DIRTYPE,
                "symlink": tarfile.SYMTYPE,
                "hardlink": tarfile.LNKTYPE,
                "fifo": tarfile.FIFOTYPE,
            }[kind]
            info.linkname = data
            tar.addfile(info)
    buf.seek(0)
    return tarfile.open(fileobj=buf)


@pytest.fixture(params=["with-filter", "without-filter"])
def python(request, monkeypatch):
    """This Python's tarfile, or the same without the extraction filters (as on Python 3.11.2)."""
    if request.param == "without-filter":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return request.param


def test_a_tree_with_links_inside_itself_is_extracted(tmp_path, python):
    extract_all(
        archive(
            ("dir", "pkg", ""),
            ("file", "pkg/a.py", "x = 1\n"),
            ("symlink", "pkg/b.py", "a.py"),
            ("symlink", "top", "pkg"),
            ("hardlink", "pkg/c.py", "pkg/a.py"),
            ("file", "top/d.py", "y = 2\n"),
        ),
        tmp_path,
    )
    assert (tmp_path / "pkg" / "b.py").read_text() == "x = 1\n" and os.readlink(tmp_path / "pkg" / "b.py") == "a.py"
    assert (tmp_path / "pkg" / "c.py").read_text() == "x = 1\n" and (tmp_path / "pkg" / "d.py").read_text() == "y = 2\n"
    mode = (tmp_path / "pkg" / "a.py").stat().st_mode & 0o7777
    assert mode & 0o4000 == 0 and mode & 0o022 == 0


@pytest.mark.parametrize(
    ("member", "what"),
    [
        (("symlink", "etc", "/etc"), "a symlink to the absolute path '/etc'"),
        (("symlink", "up", "../../outside"), "a symlink to '../../outside', outside the repository"),
        (("file", "../escape.py", "x"), "an entry outside the repository"),
        (("file", "/abs.py", "x"), "an entry with an absolute path"),
        (("hardlink", "h", "/etc/passwd"), "a hard link to the absolute path '/etc/passwd'"),
        (("hardlink", "h", "../../x"), "a hard link to '../../x', outside the repository"),
        (("fifo", "pipe", ""), "a special file (device, FIFO or socket)"),
    ],
)
def test_every_member_that_leaves_the_tree_is_refused(tmp_path, python, member, what):
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(UnsafeMember) as caught:
        extract_all(archive(("file", "ok.py", "x"), member), dest)
    assert caught.value.what == what
    assert not (tmp_path / "escape.py").exists()


def test_a_link_to_outside_cannot_be_written_through(tmp_path, python):
    dest = tmp_path / "dest"
    dest.mkdir()
    # `sub` links inside; a later member reaches outside through it.
    with pytest.raises(UnsafeMember):
        extract_all(archive(("dir", "a", ""), ("symlink", "a/sub", ".."), ("file", "a/sub/../../x.py", "x")), dest)
    assert not (tmp_path / "x.py").exists()

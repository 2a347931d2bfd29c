"""Extract a tar archive into a folder, refusing every member that could write or point outside it.

Python 3.11.4 added extraction filters (`filter="data"`); Debian 12's own Python is 3.11.2,
where neither the argument nor `tarfile.FilterError` exists. So every member is checked
here, one by one as it is extracted (a link extracted earlier is resolved by the next
check), with the rules of the "data" filter: no absolute or `..` names, links only to
places inside the folder, regular files, folders and links only, no set-uid or
group/other-writable modes, and ownership left to whoever extracts. Where the filter
exists it runs too, as a second check.
"""

from __future__ import annotations

import copy
import os
import tarfile
from pathlib import Path


class UnsafeMember(Exception):
    """A member the destination cannot hold; `what` says why, phrased after "is"."""

    def __init__(self, member: tarfile.TarInfo, what: str):
        self.member = member
        self.what = what
        super().__init__(f"{member.name!r} is {what}")


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _checked(member: tarfile.TarInfo, root: str) -> tarfile.TarInfo:
    """A copy of `member` safe to extract under `root` (raises `UnsafeMember`)."""
    name = member.name
    if os.path.isabs(name) or name.startswith("/"):
        raise UnsafeMember(member, "an entry with an absolute path")
    target = os.path.realpath(os.path.join(root, name))
    if not _inside(root, target):
        raise UnsafeMember(member, "an entry outside the repository")
    if member.issym():
        if os.path.isabs(member.linkname):
            raise UnsafeMember(member, f"a symlink to the absolute path {member.linkname!r}")
        pointed = os.path.realpath(os.path.join(os.path.dirname(target), member.linkname))
        if not _inside(root, pointed):
            raise UnsafeMember(member, f"a symlink to {member.linkname!r}, outside the repository")
    elif member.islnk():
        if os.path.isabs(member.linkname):
            raise UnsafeMember(member, f"a hard link to the absolute path {member.linkname!r}")
        if not _inside(root, os.path.realpath(os.path.join(root, member.linkname))):
            raise UnsafeMember(member, f"a hard link to {member.linkname!r}, outside the repository")
    elif not (member.isreg() or member.isdir()):
        raise UnsafeMember(member, "a special file (device, FIFO or socket)")
    safe = copy.copy(member)
    # Ownership: the extracting user's (the archive's uid would be applied when running as root).
    safe.uid, safe.gid, safe.uname, safe.gname = os.getuid(), os.getgid(), "", ""
    if member.isreg() or member.islnk():
        # The data filter's modes: no set-uid/gid/sticky, no group/other write; owner may read and write.
        safe.mode = (member.mode & 0o755) | 0o600
    elif member.isdir():
        safe.mode = (member.mode & 0o755) | 0o700
    return safe


def extract_all(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract every member of `tar` into `dest`, checking each first (raises `UnsafeMember`)."""
    root = os.path.realpath(dest)
    has_filter = hasattr(tarfile, "data_filter")
    for member in tar:
        safe = _checked(member, root)
        if has_filter:
            try:
                tar.extract(safe, root, set_attrs=True, filter="data")
            except tarfile.FilterError as exc:
                raise UnsafeMember(member, f"an entry the initial state cannot hold ({exc})") from None
        else:
            tar.extract(safe, root, set_attrs=True)

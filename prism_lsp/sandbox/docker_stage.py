"""Docker's per-runner staging folders: a program's container sees its own tree and no other.

The tree cache is never mounted into a runner's container. Instead one host folder per
container (`<cache>/stage/<name>`, mode 0711: traversable, not listable) is mounted
read-only, holding one folder per runner, owned by that runner's uid and 0700 (when Prism
runs as root; otherwise named by a random token only this backend knows). Before each
program the host places exactly that program's tree there (hard links from the cache, a copy
across filesystems); after it, the folder is emptied. A digest a program finds in its
runner's memory then names nothing it can open, and a sibling runner's folder is another
uid's.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

STAGE_LABEL = "prism.stage"


def link_tree(source: Path, target: Path) -> int:
    """Recreate `source` at `target`: folders made, files hard-linked (copied when linking
    is refused: another filesystem, protected hard links), symlinks recreated. Returns the file count."""
    count = 0
    target.mkdir(mode=0o755)
    for folder, dirs, files in os.walk(source):
        rel = os.path.relpath(folder, source)
        here = target if rel == "." else target / rel
        for name in dirs:
            src = os.path.join(folder, name)
            if os.path.islink(src):
                os.symlink(os.readlink(src), here / name)
            else:
                (here / name).mkdir(mode=0o755)
        for name in files:
            src = os.path.join(folder, name)
            if os.path.islink(src):
                os.symlink(os.readlink(src), here / name)
                continue
            try:
                os.link(src, here / name)
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                    raise
                shutil.copy2(src, here / name)
            count += 1
    return count


@dataclass
class RunnerStage:
    """One runner's staging folder: host path, and the same folder as the container sees it."""

    host: Path
    inside: str

    def place(self, tree: str) -> str:
        """Stage `tree` (a host path in the cache) alone; returns the path the runner must read it at."""
        self.clear()
        link_tree(Path(tree), self.host / "tree")
        return f"{self.inside}/tree"

    def clear(self) -> None:
        shutil.rmtree(self.host / "tree", ignore_errors=True)

    def remove(self) -> None:
        shutil.rmtree(self.host, ignore_errors=True)


class StageRoot:
    """A container's staging folder on the host, mounted read-only at `inside`."""

    def __init__(self, cache_root: Path, name: str, inside: str):
        self.host = cache_root / "stage" / name
        self.inside = inside
        (cache_root / "stage").mkdir(mode=0o711, parents=True, exist_ok=True)
        self.host.mkdir(mode=0o711)
        # The mount keeps the host folder's mode whatever the umask: runners traverse, never list it.
        self.host.chmod(0o711)

    def for_runner(self, uid: int) -> RunnerStage:
        """A folder only `uid` can read: its own (0700) when Prism is root, else a secret name (0755)."""
        if os.geteuid() == 0:
            name = str(uid)
            folder = self.host / name
            folder.mkdir(mode=0o700)
            os.chown(folder, uid, uid)
        else:
            name = f"{uid}-{secrets.token_hex(16)}"
            folder = self.host / name
            folder.mkdir(mode=0o755)
            folder.chmod(0o755)
        return RunnerStage(folder, f"{self.inside}/{name}")

    def remove(self) -> None:
        shutil.rmtree(self.host, ignore_errors=True)

"""Clean-up between programs: what one program left in the shared folders goes before the next runs.

A runner runs many programs (the initial state and every candidate) one after another; each
must see the same empty /tmp, /dev/shm and scratch folder, or one candidate could read or
plant what another left. Removal is iterative (a folder nested thousands deep must not
overflow anything) and makes every folder it meets writable and searchable first (a program
may leave mode-000 folders). If anything is left, the runner says so and is replaced: a
clean-up that failed must never leak into a later program.
"""

from __future__ import annotations

import os
import stat

SHARED_DIRS = ("/tmp", "/dev/shm")


class CleanupFailed(Exception):
    """Something a program left could not be removed. `result` is the answer to give for the
    program that left it (set by the supervisor) before the runner ends."""

    result = None


def remove_tree(path: str) -> None:
    """Remove `path` (file, link or folder of any depth and mode); raises OSError if something stays.

    Walks by changing into each folder (names, never long paths: a folder 3000 deep has a path
    far beyond PATH_MAX) and never follows a link; the working folder is restored after.
    """
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
        return
    home = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        _enter(path)
        names: list[str] = []  # the folders entered below `path`, outermost first
        while True:
            sub = None
            with os.scandir(".") as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        sub = entry.name
                        break
                    os.unlink(entry.name)
            if sub is not None:
                _enter(sub)
                names.append(sub)
                continue
            if not names:
                break
            os.chdir("..")
            os.rmdir(names.pop())
        os.fchdir(home)
        os.rmdir(path)
    finally:
        os.fchdir(home)
        os.close(home)


def _enter(name: str) -> None:
    """Change into folder `name` (never through a link), made readable and searchable first."""
    try:
        os.chmod(name, 0o700, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchdir(fd)
    finally:
        os.close(fd)


class SharedFolders:
    """Remembers what /tmp, /dev/shm and the scratch folder held once the runner was ready;
    `forget()` removes whatever this runner's uid created there since."""

    def __init__(self, scratch: str):
        self.before: dict[str, set[str]] = {}
        for folder in (*SHARED_DIRS, scratch):
            try:
                self.before[folder] = set(os.listdir(folder))
            except OSError:
                pass

    def forget(self) -> None:
        """Remove what the last program left; raises CleanupFailed naming what stayed."""
        me = os.getuid()
        stuck = []
        for folder, before in self.before.items():
            try:
                entries = os.listdir(folder)
            except OSError:
                continue
            for name in entries:
                path = os.path.join(folder, name)
                try:
                    if name in before or os.lstat(path).st_uid != me:
                        continue  # ours from before, or another runner's (Docker): not this run's
                    remove_tree(path)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    stuck.append(f"{path}: {exc.strerror or exc}")
        if stuck:
            raise CleanupFailed("; ".join(stuck[:3]))


def clear_runs(scratch: str) -> None:
    """Remove the per-run folder (`run`) of the scratch folder; raises CleanupFailed if it stays."""
    stuck = []
    for entry in os.listdir(scratch):
        if entry == "run" or entry.startswith("run-"):
            try:
                remove_tree(os.path.join(scratch, entry))
            except OSError as exc:
                stuck.append(f"{entry}: {exc.strerror or exc}")
    if stuck:
        raise CleanupFailed("; ".join(stuck[:3]))

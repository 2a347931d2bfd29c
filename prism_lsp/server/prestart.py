"""Runners started before they are needed: when a workspace folder is a task (at `initialized`) and
when a file of a task opens, so the first run of a suite does not wait for its sandboxes.

A sandbox's start (bubblewrap, the runner's Python with pytest imported) costs hundreds of
milliseconds to seconds on a repository's interpreter; started here it overlaps the client's
start-up, the buffer's analysis and the trees' build instead of coming after them. Nothing of the
task runs here but the runners' own start, which the first run would do anyway.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from prism_lsp.server.prism_server import PrismServer, uri_path

_pending: set[asyncio.Task] = set()  # kept until done (the loop holds only weak references)


def prestart(ls: PrismServer, path: Path | None, *, build_trees: bool = False) -> None:
    """Begin starting the runners of `path`'s task in the background; log once they are up."""
    if path is None or ls.settings.static_only:
        return  # an untrusted folder: nothing of its task is started
    task = asyncio.get_running_loop().create_task(_prestart(ls, path, build_trees))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _prestart(ls: PrismServer, path: Path, build_trees: bool) -> None:
    try:
        started = await asyncio.to_thread(ls.checker.prepare, path, ls.settings, build_trees=build_trees)
    except Exception as exc:  # starting early is a nicety: the run starts them anyway, and says why not
        ls.log(f"Prism: could not start runners early for {path}: {exc!r}")
        return
    if started is not None:
        task, runners = started
        ls.log(f"Prism: {runners} runners ready for task `{task.id}` before its first run")


def prestart_workspace(ls: PrismServer) -> None:
    """At `initialized`: the workspace folders that are tasks (a `prism.toml` at their root)."""
    uris = [folder.uri for folder in ls.workspace.folders.values()]
    if not uris and ls.workspace.root_uri:
        uris = [ls.workspace.root_uri]
    for uri in uris:
        root = uri_path(uri)
        if root is not None and (root / "prism.toml").is_file():
            prestart(ls, root / "prism.toml", build_trees=True)

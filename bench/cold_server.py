"""`prism-lsp` without what makes it fast: no per-test result reuse, new runners for every run.

The baseline of `bench/lsp_latency.py`, started as `python bench/cold_server.py` (stdio),
so the server itself carries no benchmark switch.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prism_lsp.document.checker import Checker  # noqa: E402
from prism_lsp.engine.panel import Progress  # noqa: E402
from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.model.run import PanelRun, Suite  # noqa: E402
from prism_lsp.model.task import Task  # noqa: E402
from prism_lsp.scheduler import SessionPanelRunner  # noqa: E402


class ColdEngine(SessionPanelRunner):
    """A new session (so new runners) for every run: what Prism costs without its warm pool."""

    def run(
        self,
        task: Task,
        suite: Suite,
        options: RunOptions,
        *,
        progress: Progress | None,
        cancel: threading.Event | None,
    ) -> PanelRun:
        with EngineSession(self.session.cache.root, self.session.workers) as cold:
            return cold.run(task, suite, options, progress=progress, cancel=cancel)


def cold_checker(cache_root: Path | None = None) -> Checker:
    return Checker(cache_root, engine=ColdEngine, reuse=False)


def main() -> None:
    from prism_lsp.server.app import main as serve
    from prism_lsp.server.app import server

    server.use_checker(cold_checker())
    serve()


if __name__ == "__main__":
    main()

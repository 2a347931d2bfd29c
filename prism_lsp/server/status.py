"""The `prism/status` notification (for status bars) and `$/progress` while a panel runs."""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from lsprotocol import types

from prism_lsp.document.check import Check
from prism_lsp.document.counts import panel_line
from prism_lsp.document.standing import standing, state_of
from prism_lsp.judge.reveal import PANEL_SHOWN_AT

log = logging.getLogger(__name__)

STATUS = "prism/status"


def cannot_judge(valid_total: int, invalid_total: int) -> list[str]:
    """What a panel this small cannot show about a suite (a passing verdict there proves nothing).

    `valid_total` counts the valid candidates besides the reference, as `panel_counts` does."""
    missing = []
    if valid_total == 0:
        missing.append("over-specification (no valid candidate besides the reference)")
    if invalid_total == 0:
        missing.append("under-assertion (no invalid candidate)")
    return missing


def status_params(
    uri: str,
    state: str,
    check: Check | None = None,
    *,
    done: int | None = None,
    total: int | None = None,
    message: str | None = None,
) -> dict[str, Any]:
    """The payload of DESIGN's `prism/status` (the VS Code client parses exactly this).

    `unjudged` lists what the panel is too small to judge (then no verdict may look like a pass);
    `stale` says the counts are an older version's (a syntax error now, an edit since the run)."""
    metrics = valid = invalid = None
    accepted = valid_total = rejected = invalid_total = 0
    unjudged: list[str] = []
    if check is not None and check.report is not None and check.report.reveal in PANEL_SHOWN_AT:
        report = check.report  # at `sealed` no panel number: the status says only the state
        metrics = report.metrics.model_dump()
        accepted, valid_total, rejected, invalid_total = report.panel_counts()
        # without the reference, as valid_acceptance; `summary` is the one wording of these counts
        valid = {"accepted": accepted, "total": valid_total}
        invalid = {"rejected": rejected, "total": invalid_total}
        unjudged = cannot_judge(valid_total, invalid_total)
    return {
        "uri": uri,
        "state": state,
        "metrics": metrics,
        "valid": valid,
        "invalid": invalid,
        "done": done,
        "total": total,
        "message": message,
        "unjudged": unjudged,
        "summary": panel_line(accepted, valid_total, rejected, invalid_total) if valid is not None else None,
        "stale": False,
    }


def finished_status(uri: str, check: Check, last_run: Check | None) -> dict[str, Any]:
    """The status once a check is over: where the document stands (see :mod:`prism_lsp.document.standing`,
    which the lenses read too). A suite that cannot run now (a syntax error while typing) keeps
    showing the last run's counts, said to be from that run, rather than "no results"."""
    now = standing(check, last_run)
    return {**status_params(uri, now.state, now.shown, message=now.message), "stale": now.stale}


def run_summary(uri: str, check: Check) -> str:
    """One line for the client's log: what the check of one version came to, and how long the run took."""
    name = uri.rsplit("/", 1)[-1]
    state, message = state_of(check)
    line = f"{name} v{check.version}: {state}" + (f" ({message})" if message else "")
    if check.report is not None and check.run is not None and check.report.reveal in PANEL_SHOWN_AT:
        accepted, valid, rejected, invalid = check.report.panel_counts()
        m = check.report.metrics
        line += (
            f"; JSF {'yes' if m.jsf else 'no'}, {panel_line(accepted, valid, rejected, invalid)}; "
            f"panel {check.run.elapsed_ms:.0f} ms"
        )
    return line


def dropped_status(uri: str, last: Check | None, run_on: str) -> dict[str, Any]:
    """The status after a run whose buffer changed before it ended (its result was dropped).

    "running" must not stay on: nothing else would end it until the next save. The last
    published run's metrics stay, labelled as older than the buffer."""
    message = (
        "the buffer changed since the last save; save to run the panel on it"
        if run_on == "save"
        else "the buffer changed since the run started; a new run follows"
    )
    return {**status_params(uri, "idle", last, message=message), "stale": last is not None and last.report is not None}


class PanelProgress:
    """Work-done progress for one panel run; silent when the client does not support it.

    `report` may be called from the engine's threads; it hops onto the event loop.
    """

    def __init__(self, server: Any, enabled: bool, uri: str, *, first: bool = False) -> None:
        self.server = server
        # a document's first run also waits for the sandbox's runners to start (seconds when cold)
        self.message = "starting the sandbox, then running the panel" if first else "running the panel"
        self.enabled = enabled
        self.uri = uri
        self.token = f"prism-{uuid.uuid4().hex[:12]}"
        self.loop = asyncio.get_running_loop()
        self.started = False

    async def begin(self) -> None:
        if not self.enabled:
            return
        try:
            # shielded: a check cancelled meanwhile must not cancel the request's own future
            await asyncio.wait_for(asyncio.shield(self.server.work_done_progress.create_async(self.token)), 5)
        except Exception as exc:  # a client that refuses is not a problem
            log.info("work done progress not created: %r", exc)
            return
        self.started = True
        self.server.work_done_progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title="Prism", message=self.message, percentage=0, cancellable=False),
        )

    def report(self, done: int, total: int, program: str) -> None:
        self.loop.call_soon_threadsafe(self._report, done, total)

    def _report(self, done: int, total: int) -> None:
        if self.started:
            self.server.work_done_progress.report(
                self.token,
                types.WorkDoneProgressReport(
                    message=f"{done}/{total} programs", percentage=int(100 * done / max(total, 1))
                ),
            )
        self.server.protocol.notify(STATUS, status_params(self.uri, "running", done=done, total=total))

    def end(self, message: str = "done") -> None:
        if self.started:
            self.started = False
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))

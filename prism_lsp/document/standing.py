"""Where a document stands now: the one reading that the status bar and the code lenses both show.

From the document's last finished check and its last check with panel results, :func:`standing`
decides the state (`running`, `idle`, `error`, `no-task`, as `prism/status` says it), the message,
the check whose counts are shown and whether those counts are an older version's (a syntax
error now: the last run's, marked as such). An error state is named by what went wrong (an
ImportError is a collection error, not a syntax error) and shows no verdict. Pure: no LSP.
"""

from __future__ import annotations

from dataclasses import dataclass

from prism_lsp.document.check import Check

# How an error of the suite itself is named (the runner's reason words); any other reason is "<reason> error".
_ERROR_NAMES = {"collection": "collection error", "fixture": "fixture error", "timeout": "timeout"}


@dataclass(frozen=True)
class Standing:
    """What the editor says about one document now."""

    state: str  # running | idle | error | no-task
    message: str | None
    shown: Check | None  # whose counts are shown: the check itself, the last run when `stale`, or None
    stale: bool = False  # the counts are an older version's (the buffer cannot run as it is now)
    error: str | None = None  # the error state's name, for titles ("collection error", "could not run the panel")


def error_name(reason: str | None) -> str:
    """`collection error` for the runner's `collection`, `fixture error`, `timeout`, else `<reason> error`."""
    if not reason or reason == "error":
        return "error"
    return _ERROR_NAMES.get(reason, f"{reason} error")


def state_of(check: Check) -> tuple[str, str | None]:
    """(state, message) of one check by itself, for `prism/status`."""
    state = check.state
    if state.kind == "no-task":
        return "no-task", "no prism.toml found above this file"
    if state.kind == "failed":
        return "error", state.reason
    if state.kind == "not-run":
        return "idle", f"not run: {state.reason}"
    if state.kind == "running":
        return "running", None
    broken = suite_broken(check)
    if broken is not None:
        name, detail = broken
        why = f"{name}: the suite cannot run on the initial program nor the reference"
        return "error", f"{why} ({detail})" if detail else why
    if check.stats is not None:
        line = f"{check.stats.tests_run} test(s) run, {check.stats.tests_cached} from cache"
        if check.stats.programs_reused and check.reveal == "full":  # a count of the panel: at `full` only
            line += (
                f"; {check.stats.programs_reused} candidate(s) not rerun: no test run reaches their change, "
                "so the initial program's results are theirs"
            )
        return "idle", line
    return "idle", None


def suite_broken(check: Check) -> tuple[str, str] | None:
    """(the error's name, the first line of its message) when the suite itself could not run (an ImportError, a collection error), or None.

    It errors on the initial program and on the reference alike: then the counts say nothing
    about the suite's assertions, so the state is an error, not a verdict. (An error on the
    initial program alone is how a baseline may fail: that is a verdict.)"""
    report = check.report
    if report is None or report.baseline.outcome != "error":
        return None
    reference = next((c for c in report.candidates if c.reference), None)
    if reference is not None and reference.outcome != "error":
        return None
    if reference is None and report.metrics.rar:  # reveal `counts`: RAR says whether the reference passed
        return None
    base = report.baseline
    first = base.message.strip().splitlines()[0] if base.message.strip() else ""
    return error_name(base.reason), first


def standing(check: Check, last_run: Check | None = None) -> Standing:
    """Where the document stands after `check` (its last finished check); `last_run` is its last
    check with panel results. A suite that cannot run now (a syntax error while typing) keeps
    showing the last run's counts, said to be from that run."""
    state, message = state_of(check)
    if (
        check.state.kind == "not-run"
        and check.is_suite
        and last_run is not None
        and last_run.report is not None
        and last_run.task == check.task
        and last_run.reveal == check.reveal
    ):
        message = f"{message}; the counts are from the last run (version {last_run.version})"
        return Standing(state, message, last_run, stale=True)
    if check.state.kind == "failed":
        return Standing(state, message, None, error="could not run the panel")
    broken = suite_broken(check)
    if broken is not None:
        return Standing(state, message, check, error=broken[0])
    return Standing(state, message, check if check.report is not None else None)

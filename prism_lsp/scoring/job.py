"""Scoring one pair: identify it (on the driver), then run it with an engine session (anywhere).

`identify` reads the task's manifest and the suite's text where the command runs, and
names the pair by (task id, suite digest) -- the key of its stored report. `run_job` is
what an engine calls, locally or on a Ray node: it loads the task from its folder, runs the
suite on the initial state and the panel, and returns the pair's record, a plain dict.
Every failure of one pair becomes an error record naming it, so the other pairs complete.

Records hold no timing and nothing engine-specific, so the same pairs give the same JSON
whatever ran them. Runners start with PYTHONHASHSEED fixed (`HASH_SEED`), so pytest's
messages (which print dict and set items in hash order) are the same from run to run.
"""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.judge.weak_findings import weak_assertion_findings
from prism_lsp.materialize import MaterializeError
from prism_lsp.materialize.digest import tree_digest
from prism_lsp.model.manifest import ManifestError
from prism_lsp.model.run import Suite
from prism_lsp.sandbox import SandboxUnavailable
from prism_lsp.sandbox.base import runner_environment
from prism_lsp.scoring.pairs import Pair
from prism_lsp.tasks import load_task

# The seed every sandbox backend gives its runners, read from the one place that sets it.
HASH_SEED = runner_environment("/", "/")["PYTHONHASHSEED"]
# pytest's explanations print objects as `<built-in method endswith of str object at 0x7f19…>`:
# the address changes with every process (ASLR), the rest of the message does not.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,}")


def without_addresses(value):
    """`value` (a report as JSON data) with object addresses in its texts replaced by `at 0x…`."""
    if isinstance(value, str):
        return _ADDRESS.sub("at 0x…", value)
    if isinstance(value, list):
        return [without_addresses(v) for v in value]
    if isinstance(value, dict):
        return {k: without_addresses(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class JobOptions:
    """Per-run choices that change results, so they are part of what a stored report is valid for."""

    sandbox: str | None = None
    timeout_s: float | None = None
    repeat: int = 1  # hash seeds every program runs under (`--repeat`)


@dataclass(frozen=True)
class Job:
    """A pair, identified: what an engine needs to score it, picklable for Ray."""

    pair: Pair
    task_id: str
    suite_rel: str
    suite_text: str
    suite_digest: str
    task_digest: str


def suite_digest(rel_path: str, text: str) -> str:
    """sha256 of where the suite runs and what it says: both decide its results."""
    return hashlib.sha256(rel_path.encode() + b"\0" + text.encode("utf-8")).hexdigest()


def error_record(pair: Pair, message: str, *, task: str | None = None, suite: str | None = None) -> dict:
    """The record of a pair that could not be scored: an error row, never a verdict."""
    return {
        "task": task or pair.task_dir.name,
        "suite": suite or str(pair.suite_path),
        "suite_file": str(pair.suite_path),
        "status": "error",
        "error": message,
        "hashseed": HASH_SEED,
        "report": None,
    }


def identify(pair: Pair) -> Job | dict:
    """The pair's `Job`, or its error record when the task or suite cannot be read."""
    try:
        task = load_task(pair.task_dir)
    except ManifestError as exc:
        return error_record(pair, str(exc))
    except OSError as exc:
        return error_record(pair, f"{pair.task_dir}: cannot read the task: {exc.strerror or exc}")
    if not pair.suite_path.is_file():
        return error_record(pair, f"{pair.suite_path}: suite file does not exist", task=task.id)
    try:
        text = pair.suite_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return error_record(pair, f"{pair.suite_path}: cannot read the suite: {exc}", task=task.id)
    rel = task.suite_rel(pair.suite_path)
    return Job(pair, task.id, rel, text, suite_digest(rel, text), tree_digest(task.root))


def _record(job: Job, options: JobOptions) -> dict:
    return {
        "task": job.task_id,
        "suite": job.suite_rel,
        "suite_file": str(job.pair.suite_path),
        "status": "ok",
        "error": None,
        "hashseed": HASH_SEED,
        "suite_digest": job.suite_digest,
        "task_digest": job.task_digest,
        "options": asdict(options),
    }


def run_job(
    session: EngineSession, job: Job, options: JobOptions, cancel: threading.Event | None = None
) -> tuple[dict, float]:
    """Score one identified pair: (its record, milliseconds it took)."""
    start = time.perf_counter()
    record = _record(job, options)
    try:
        task = load_task(job.pair.task_dir)
        suite = Suite(job.suite_rel, job.suite_text)
        report = session.report(
            task,
            suite,
            RunOptions(sandbox=options.sandbox, timeout_s=options.timeout_s, scoring=True, repeat=options.repeat),
            cancel=cancel,
            extra_findings=weak_assertion_findings(job.suite_text),
        )
        # Timing differs from run to run; it goes to the store's journal, not the record.
        record["report"] = without_addresses(report.model_dump(mode="json", exclude={"timing_ms"}))
    except SandboxUnavailable as exc:
        # On a cluster, which node lacks the sandbox matters.
        record.update(status="error", error=f"{exc} (on {socket.gethostname()})", report=None)
    except (ManifestError, MaterializeError) as exc:
        record.update(status="error", error=str(exc), report=None)
    except (OSError, UnicodeDecodeError) as exc:
        record.update(status="error", error=f"{job.pair.task_dir}: {exc}", report=None)
    return record, (time.perf_counter() - start) * 1000


def open_session(cache_dir: Path | str | None, workers: int | None, *, result_cache: bool = False) -> EngineSession:
    """The engine session a scorer keeps for all its pairs (warm runners, one tree cache); with
    `result_cache`, one whose per-test results last on disk (`<cache>/results/`)."""
    if not result_cache:
        return EngineSession(Path(cache_dir) if cache_dir else None, workers)
    from prism_lsp.materialize.cache import default_cache_dir
    from prism_lsp.scheduler.cached_session import CachedSession, open_results

    root = Path(cache_dir) if cache_dir else default_cache_dir()
    return CachedSession(root, workers, results=open_results(root)[0])

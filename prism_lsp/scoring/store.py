"""The resumable store: one JSON report per (task, suite digest) under `--out DIR`.

    DIR/pairs/<task id>/<suite digest>.json   the pair's record (what `job.run_job` returned)
    DIR/journal.jsonl                         one line per pair scored: key, where it ran, milliseconds

A report is written to a temporary file and renamed into place, so a run killed at any
moment leaves whole reports or none (a SIGKILL midway can leave a `.partial-*` temporary file,
which is never read as a report and which the next run over the folder removes); a rerun reuses every report that is still valid
(same task digest, same options, same hash seed) and scores the rest. Error rows are
not stored: they are cheap to find again, and a fixed task or suite must not stay an error.
The journal is how one can check that nothing was scored twice.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from prism_lsp.scoring.job import HASH_SEED, Job, JobOptions

PARTIAL = ".partial-"  # the prefix of a report still being written


class ResultStore:
    """Stored records of one output folder; not shared between processes at once."""

    def __init__(self, root: Path):
        self.root = Path(root)
        (self.root / "pairs").mkdir(parents=True, exist_ok=True)
        self.journal = self.root / "journal.jsonl"
        for stale in (self.root / "pairs").glob(f"*/{PARTIAL}*"):  # a killed run's half-written file
            stale.unlink(missing_ok=True)

    def path(self, job: Job) -> Path:
        # Task ids are [a-z0-9._-]+ (the manifest checks), so they are safe folder names.
        return self.root / "pairs" / job.task_id / f"{job.suite_digest}.json"

    def load(self, job: Job, options: JobOptions) -> dict | None:
        """The stored record of this job, when there is one still valid for these options."""
        try:
            record = json.loads(self.path(job).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent, or not ours to trust: score it again
        if not isinstance(record, dict):
            return None
        valid = (
            record.get("status") == "ok"
            and record.get("task_digest") == job.task_digest
            and record.get("suite_digest") == job.suite_digest
            and record.get("hashseed") == HASH_SEED
            and _options(record.get("options")) == asdict(options)
        )
        return record if valid else None

    def save(self, job: Job, record: dict, elapsed_ms: float, where: str) -> None:
        """Write the record (atomically), then note it in the journal; error rows are skipped."""
        if record.get("status") != "ok":
            return
        target = self.path(job)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=PARTIAL, suffix=".json", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh, indent=1)  # key order kept: a reused record prints as a fresh one
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        line = {
            "task": job.task_id,
            "suite": job.suite_rel,
            "suite_digest": job.suite_digest,
            "where": where,
            "ms": round(elapsed_ms, 1),
            "at": round(time.time(), 3),
        }
        # The record and its journal line land together: a Ctrl-C between the two would leave a
        # stored pair the journal does not know (SIGINT waits here until both are written).
        with _interrupts_deferred():
            try:
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            with open(self.journal, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(line) + "\n")

    def journal_lines(self) -> list[dict]:
        """Every pair this folder has seen scored, oldest first."""
        if not self.journal.is_file():
            return []
        return [json.loads(line) for line in self.journal.read_text(encoding="utf-8").splitlines() if line.strip()]


def _options(stored: object) -> object:
    """A record's options as `JobOptions` now has them: one written before `repeat` ran one seed."""
    return {"repeat": 1, **stored} if isinstance(stored, dict) else stored


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back (delivered on exit) in this thread while the body runs."""
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)

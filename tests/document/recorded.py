"""One checked buffer for the pure server and document tests, built on a recorded panel run.

The buffer (never written to disk: the server checks unsaved text too) runs on the
`mean-rounded` fixture task. Its panel run was recorded once as the runner answers it
(`recordings/<name>.json`, one answer per program); the tests replay it through
the real parser (`program_from_runner`), the real trees and the real report builder, so they
need no sandbox. `tests/document/test_recording_e2e.py` proves the recording still matches
a real run; when it does not, rerecord with

    python -m tests.document.recorded

Lines (1-based) the tests pin: the multi-line halfway assert is 9-11; the accented line is 23.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from prism_lsp.document.check import Check, finished
from prism_lsp.document.checker import Checker
from prism_lsp.engine.panel import BASELINE
from prism_lsp.engine.results import program_from_runner
from prism_lsp.judge.redact import redact_run
from prism_lsp.judge.report import build_report
from prism_lsp.model.outcome import ProgramResult
from prism_lsp.model.run import PanelRun, Suite
from prism_lsp.runner._prism_protocol import Result
from prism_lsp.server.settings import Settings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TASK = FIXTURES / "mean-rounded"
PATH = TASK / "suites" / "test_unit_buffer.py"
RECORDINGS = Path(__file__).with_name("recordings")
CANDIDATE_IDS = [
    "reference",
    "half-even",
    "half-away",
    "half-down",
    "statistics",
    "trunc-negative",
    "consumes-input",
    "forgets-last",
    "median",
    "ceiling",
]
# `reference` is also an ordinary word (the hover's "(reference)"), so it is not searched for.
SECRET = [c for c in CANDIDATE_IDS if c != "reference"]

# mean([1, 4]) = 2.5: half-even, half-down and statistics give 2, the suite demands 3.
TEXT = """from solution import mean_rounded


def test_whole_mean():
    assert mean_rounded([2, 4, 6]) == 4


def test_halfway():
    assert mean_rounded(
        [1, 4]
    ) == 3


def test_ignored_kind():
    assert mean_rounded([3, 6]) == 5  # prism: ignore[rejects-valid]


def test_ignored_all():
    assert mean_rounded([5, 8]) == 7  # prism: ignore


def test_accents():
    label = "é€𝄞"; assert mean_rounded([7, 10]) == 9
"""


@dataclass(frozen=True)
class Recording:
    """One buffer of a fixture task whose panel run is recorded in `RECORDINGS/<name>.json`."""

    name: str
    path: Path
    text: str

    @property
    def file(self) -> Path:
        return RECORDINGS / f"{self.name}.json"


UNIT = Recording("mean-rounded-unit", PATH, TEXT)
BLIND_PATH = TASK / "suites" / "test_blind.py"
BLIND = Recording("mean-rounded-blind", BLIND_PATH, BLIND_PATH.read_text())
ALL = [UNIT, BLIND]


def recorded_check(cache: Path, settings: Settings | None = None, recording: Recording = UNIT) -> Check:
    """The buffer checked as the server does, with the recorded run in place of the sandbox's."""
    checker = Checker(cache)
    try:
        base = checker.analyze(recording.path, 1, recording.text, settings or Settings())
        assert base.runnable and base.task is not None, base.state
        task = base.task
        answers = json.loads(recording.file.read_text())
        programs = [BASELINE, *[c.id for c in task.candidates]]
        trees = {pid: checker.session.cache.program(task, task.candidate(pid)) for pid in programs}
        run = PanelRun(
            program_from_runner(Result.from_dict(answers[BASELINE])),
            [(c, program_from_runner(Result.from_dict(answers[c.id]))) for c in task.candidates],
            trees,
            0.0,
        )
        return finished(base, run)
    finally:
        checker.close()


def real_check(cache: Path, settings: Settings | None = None, recording: Recording = UNIT) -> Check:
    """The buffer checked once through the real panel, runners and sandbox."""
    checker = Checker(cache)
    try:
        check = checker.check(recording.path, 1, recording.text, settings or Settings())
    finally:
        checker.close()
    assert check.state.kind == "finished", check.state
    return check


def answer(result: ProgramResult) -> dict:
    """`result` as the runner answers it, without what differs from run to run (durations)."""
    data = dataclasses.asdict(result)
    data.pop("cached", None)
    data.pop("reused", None)  # how the result was come by, as `cached`
    data["duration_ms"] = 0.0
    for test in data["tests"]:
        test["duration_ms"] = 0.0
        test["covered"] = dict(test["covered"])  # the protocol's form: file -> lines
    return json.loads(json.dumps(data))  # as JSON holds it (lists, not tuples)


def answers(check: Check) -> dict[str, dict]:
    """Every program's answer in `check`'s run, by program id."""
    assert check.run is not None
    return {BASELINE: answer(check.run.baseline), **{c.id: answer(r) for c, r in check.run.results}}


def at_reveal(check: Check, reveal: str) -> Check:
    """The same run seen at another reveal level (the run reduced and the report rebuilt as
    `finished` does; nothing runs again). `check` must be the full-level check."""
    assert check.task is not None and check.run is not None and check.path is not None and check.reveal == "full"
    suite = Suite(check.task.suite_rel(check.path), check.text)
    report = build_report(check.task, suite, check.run, reveal=reveal)
    return dataclasses.replace(check, reveal=reveal, run=redact_run(check.run, reveal, check.text), report=report)


def leaks(text: str) -> list[str]:
    """The candidate ids (other than `reference`) that `text` names."""
    return [cid for cid in SECRET if re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", text)]


def record(cache: Path) -> None:
    """Run every recorded buffer through the real panel and write what every program answered."""
    RECORDINGS.mkdir(exist_ok=True)
    for recording in ALL:
        recording.file.write_text(
            json.dumps(answers(real_check(cache, recording=recording)), indent=1, ensure_ascii=False) + "\n"
        )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="prism-record-") as tmp:
        record(Path(tmp))
    print(f"recorded {', '.join(r.name for r in ALL)} in {RECORDINGS}", file=sys.stderr)

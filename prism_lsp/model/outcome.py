"""What a run of a suite on one program produced (runner output, parsed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from prism_lsp.model.untrusted import plain

Outcome = Literal["pass", "fail", "error"]

# Every reason the runner, the pool and the engine give; a program may write any other word.
REASONS = frozenset(
    {
        "cancelled",
        "collection",
        "crash",
        "error",
        "exited",
        "fixture",
        "interrupted",
        "killed",
        "materialize",
        "memory",
        "no-tests",
        "output-limit",
        "process-limit",
        "protocol",
        "pytest",
        "runner",
        "sandbox",
        "skipped",
        "test-setup",
        "timeout",
    }
)


def known_reason(reason: object) -> str | None:
    """`reason` when it is a word of `REASONS` (or None); anything else a program wrote is `error`.
    The one filter of reasons, at every reveal level."""
    if reason is None:
        return None
    return reason if isinstance(reason, str) and reason in REASONS else "error"


@dataclass(frozen=True)
class AssertionResult:
    """One executed `assert` statement: where, and what it compared."""

    line: int
    outcome: Literal["pass", "fail"]
    explanation: str = ""


@dataclass(frozen=True)
class TestResult:
    """One pytest test on one program.

    `line`/`message` locate the failing assertion (or the error) in the suite;
    `reached_change` says whether the test executed a line the candidate changed
    (None when unknown, e.g. on the baseline).
    """

    name: str
    outcome: Outcome
    line: int | None = None
    message: str = ""
    reason: str | None = None
    reached_change: bool | None = None
    def_line: int | None = None
    assertions: tuple[AssertionResult, ...] = ()
    duration_ms: float = 0.0
    # Tree-relative file -> first lines of the measured statements (changed lines, entry points'
    # spans) the test ran: what `engine/change_coverage.py` counts on the reference.
    covered: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class ProgramResult:
    """A suite run on one program tree. `error` means it could not be judged."""

    outcome: Outcome
    tests: tuple[TestResult, ...] = ()
    reason: str | None = None
    message: str = ""
    line: int | None = None
    duration_ms: float = 0.0
    cached: bool = field(default=False, compare=False)
    # The initial program's result standing for a candidate's: no test reached its change (engine/reach.py).
    reused: bool = field(default=False, compare=False)

    @staticmethod
    def error(reason: str, message: str, line: int | None = None) -> ProgramResult:
        # The message may quote a candidate's diff or a program's output: shown as data only.
        return ProgramResult(outcome="error", reason=reason, message=plain(message), line=line)

"""Verdicts that hold from run to run: which tests were seen with two outcomes, and why.

Prism runs a program under one hash seed; plain pytest draws a new one every run. A failure
that would become a finding (a valid candidate rejected) is confirmed first: that test reruns on
that program under another seed (`--repeat N` runs every program under N seeds instead). A test
seen with two outcomes on any program is *unstable* for the whole panel: it gets a finding of its
own saying what differed, and no verdict resting on it is credited or becomes a finding.

One more run tells the causes apart, and only once a test is seen to differ: the same seed again.
If the first outcome comes back, the hash seed decided (set or dict order of strings); if not,
something else did (time, randomness, test order).
"""

from __future__ import annotations

from dataclasses import dataclass

from prism_lsp.model.outcome import ProgramResult

HASH_ORDER = "hash"
OTHER = "other"


@dataclass(frozen=True)
class Instability:
    """One test seen with two outcomes on one program (the first program it was seen on)."""

    test: str
    program: str  # "initial" or a candidate id
    seen: tuple[tuple[int, str], ...]  # (hash seed, outcome) in the order they ran
    cause: str  # HASH_ORDER | OTHER
    def_line: int | None = None

    def differed(self, program_name: str) -> str:
        """ "passes with hash seed 1 and fails with seed 0 on `ref`: depends on hash order..."."""
        first_seed, first = self.seen[0]
        other_seed, other = next((s, o) for s, o in self.seen if o != first)
        where = f" on {program_name}" if program_name else ""
        if self.cause == HASH_ORDER:
            # Said from the passing side first: "passes with hash seed 1 and fails with seed 0".
            (a_seed, a), (b_seed, b) = sorted([(first_seed, first), (other_seed, other)], key=lambda s: s[1] != "pass")
            return (
                f"{_verb(a)} with hash seed {a_seed} and {_verb(b)} with seed {b_seed}{where}: "
                "depends on the hash order of strings (set or dict order); plain pytest draws a new seed each run"
            )
        return (
            f"{_verb(first)}, then {_verb(other)}{where} under the same hash seed {first_seed}: depends on "
            "something that changes between runs (time, randomness, test order), not on the hash seed"
        )


def _verb(outcome: str) -> str:
    return {"pass": "passes", "fail": "fails", "error": "errors"}.get(outcome, outcome)


def outcomes(result: ProgramResult) -> dict[str, str]:
    """Test name -> outcome of one program run."""
    return {t.name: t.outcome for t in result.tests}


def to_confirm(results: dict[str, tuple[bool, ProgramResult]], known: set[str]) -> dict[str, list[str]]:
    """Program -> the failing tests a rerun must confirm: failures on valid candidates (what would
    become `rejects-valid`), leaving out tests already known to be unstable."""
    todo: dict[str, list[str]] = {}
    for program, (valid, result) in results.items():
        if valid and result.outcome == "fail":
            failing = [t.name for t in result.tests if t.outcome == "fail" and t.name not in known]
            if failing:
                todo[program] = failing
    return todo


def differing(first: ProgramResult, again: ProgramResult) -> list[tuple[str, str, str]]:
    """(test, first outcome, outcome again) of the tests both runs ran with different outcomes."""
    before = outcomes(first)
    return [
        (name, before[name], outcome)
        for name, outcome in outcomes(again).items()
        if name in before and outcome != before[name]
    ]


def settled(result: ProgramResult, unstable: set[str]) -> str:
    """The outcome the metrics may credit: `unstable` when the verdict rests on an unstable test
    (every failing test is one, or the program passed with one among its tests)."""
    if not unstable or result.outcome == "error":
        return result.outcome
    failing = [t for t in result.tests if t.outcome == "fail"]
    if any(t.name not in unstable for t in failing):
        return "fail"
    if failing or any(t.name in unstable for t in result.tests):
        return "unstable"
    return result.outcome

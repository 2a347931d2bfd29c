"""The panel report: what `prism run --json` prints and what the server renders.

Field names and meanings follow DESIGN.md's report format exactly; extra
fields (reason, def_line, reached_change, assertions, note) only add detail.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from prism_lsp.model.reveal import RevealLevel

FindingKind = Literal[
    "rejects-valid", "accepts-invalid", "misses-baseline", "execution-error", "weak-assertion", "unstable"
]
FINDING_KINDS: tuple[str, ...] = FindingKind.__args__  # type: ignore[attr-defined]
# Findings about the suite as a whole (a new test anywhere can change them), shown on a test's name.
SUITE_LEVEL_KINDS = ("accepts-invalid", "misses-baseline")
# The version of every JSON report Prism writes (this one, `prism gate --json`, the Stryker file):
# raised when a field changes meaning or goes away, not when one is added.
SCHEMA_VERSION = 1


class _Out(BaseModel):
    # Validators are built on first use, not at import: `prism-lsp` answers `initialize`
    # without paying for the report's schemas (bench/server_start.py).
    model_config = ConfigDict(defer_build=True)


class AssertionOut(_Out):
    line: int | None
    outcome: Literal["pass", "fail"]
    explanation: str = ""


class TestOut(_Out):
    name: str
    outcome: Literal["pass", "fail", "error"]
    line: int | None = None
    message: str = ""
    reason: str | None = None
    def_line: int | None = None
    reached_change: bool | None = None
    assertions: list[AssertionOut] = Field(default_factory=list)


class ProgramOut(_Out):
    outcome: Literal["pass", "fail", "error"]
    reason: str | None = None
    message: str = ""
    line: int | None = None
    tests: list[TestOut] = Field(default_factory=list)


class CandidateOut(ProgramOut):
    id: str
    label: Literal["valid", "invalid"]
    reference: bool = False
    verdict: Literal["accepted", "rejected"] | None
    correct: bool
    note: str = ""
    unstable: bool = False  # its verdict rests on a test seen with two outcomes: not credited (verdict None)


class Metrics(_Out):
    """DESIGN.md's metrics; at reveal `sealed` every one but `detects_baseline` is None (the panel is hidden)."""

    detects_baseline: bool
    rar: bool | None
    jsf: bool | None
    valid_acceptance: float | None
    invalid_rejection: float | None
    h: float | None


class PanelCounts(_Out):
    """How the panel fared, as numbers only: all the report says of candidates at reveal `counts`.

    Over the non-reference candidates, as `valid_acceptance` counts them (the reference has
    its own flag, RAR); `errors` counts every candidate that could not be judged."""

    valid_accepted: int
    valid: int
    invalid_rejected: int
    invalid: int
    errors: int

    @classmethod
    def tally(cls, members: Iterable[tuple[bool, bool, str | None, bool]]) -> PanelCounts:
        """The one way a panel is counted: each member is (valid, reference, verdict, error), the
        verdict "accepted", "rejected" or None (an error or an unstable verdict is neither)."""
        valid = invalid = valid_accepted = invalid_rejected = errors = 0
        for is_valid, reference, verdict, error in members:
            errors += error
            if is_valid and not reference:
                valid += 1
                valid_accepted += verdict == "accepted"
            elif not is_valid:
                invalid += 1
                invalid_rejected += verdict == "rejected"
        return cls(
            valid_accepted=valid_accepted,
            valid=valid,
            invalid_rejected=invalid_rejected,
            invalid=invalid,
            errors=errors,
        )

    def as_tuple(self) -> tuple[int, int, int, int]:
        """(valid accepted, valid, invalid rejected, invalid)."""
        return self.valid_accepted, self.valid, self.invalid_rejected, self.invalid


class WitnessOut(_Out):
    """An input that tells the finding's candidates apart from every valid one (reveal full/labels only)."""

    call: str  # the compared expression, e.g. `mean_rounded([-3, -4])` or `list(unique([0]))`
    expected: str  # what every valid candidate gives (a literal), `raises T`, or `leaves its arguments unchanged`
    got: dict[str, str] = Field(default_factory=dict)  # candidate (as the reveal level names it) -> what it gave


class FindingOut(_Out):
    kind: FindingKind
    line: int
    end_line: int
    candidates: list[str] = Field(default_factory=list)
    message: str
    tests: list[str] = Field(default_factory=list)
    rule: str | None = None
    count: int | None = None
    witness: WitnessOut | None = None  # accepts-invalid only, and never at reveal `counts`
    # The candidate ids the finding is about, at every reveal level; never serialised (below `full`
    # `candidates` is empty): what a witness is attached by.
    _about: tuple[str, ...] = PrivateAttr(default=())

    def about(self) -> tuple[str, ...]:
        return self._about

    def about_candidates(self, ids: tuple[str, ...]) -> FindingOut:
        """This finding, knowing which candidates it is about (in place)."""
        self._about = ids
        return self


class CoverageOut(_Out):
    """ΔC or entry coverage of the suite on the reference (`engine/change_coverage.py`): executable
    lines reached of `total`; the lines at reveal `full`, per-test numbers at `full` and `labels`."""

    reached: int
    total: int
    ratio: float | None  # None when there is no such line (a change of only `def` lines, no entry point)
    tests: dict[str, int] = Field(default_factory=dict)  # test -> lines it reaches
    lines: dict[str, list[int]] = Field(default_factory=dict)  # file -> lines reached
    missed: dict[str, list[int]] = Field(default_factory=dict)  # file -> lines no test reaches


class CacheOut(_Out):
    """How many programs and tests of the run(s) were run, and how many came from the result cache."""

    programs_run: int = 0
    programs_cached: int = 0
    tests_run: int = 0
    tests_cached: int = 0


class PanelReport(_Out):
    schema_version: int = SCHEMA_VERSION
    task: str
    suite: str
    baseline: ProgramOut
    candidates: list[CandidateOut]  # empty at reveal `counts` (`panel` holds the numbers) and `sealed`
    metrics: Metrics
    findings: list[FindingOut]
    timing_ms: dict[str, float]
    sandbox: str = ""
    warnings: list[str] = Field(default_factory=list)
    reveal: RevealLevel = "full"
    panel: PanelCounts | None = None  # None at reveal `sealed`
    # Why an `error` on the initial program detects it ("`g` does not exist there"); '' when the
    # outcome says it alone (fail, pass) or the error detects nothing (one Prism made).
    detection: str = ""
    seeds: list[int] = Field(default_factory=lambda: [0])  # PYTHONHASHSEEDs every program ran under
    confirmed_with: list[int] = Field(default_factory=list)  # seeds valid candidates' failures were rerun under
    reruns: int = 0  # test reruns that confirming failures and telling causes apart took
    # The paper's ΔC and entry coverage on the reference; None at `sealed` or when it did not run.
    change_coverage: CoverageOut | None = None
    entry_coverage: CoverageOut | None = None
    cache: CacheOut | None = None  # `prism run`: what came from the result cache (None: not asked)

    def panel_counts(self) -> tuple[int, int, int, int]:
        """(valid accepted, valid, invalid rejected, invalid) over the non-reference candidates,
        as `valid_acceptance` counts them; the reference has its own flag, RAR."""
        if self.panel is not None:
            return self.panel.as_tuple()
        return self.tally_candidates().as_tuple()

    def tally_candidates(self) -> PanelCounts:
        """The counts of the candidates this report lists (by their verdicts)."""
        return PanelCounts.tally(
            (c.label == "valid", c.reference, c.verdict, c.outcome == "error") for c in self.candidates
        )

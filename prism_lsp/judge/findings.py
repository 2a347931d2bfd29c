"""Turn outcomes into findings: where the suite judged wrongly, and why.

Messages honour the reveal level: `full` names candidates and the values
compared; `labels` and `counts` say only how many valid candidates a line rejected
and how many invalid ones a test let through (`counts` also folds the programs an
error hit into one number). Every level puts findings on the line that judged. With the suite's
text, a rejected valid candidate reads `expected 3, got 2 from `half-even``
whenever that is certain (see :mod:`prism_lsp.judge.wording`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from prism_lsp.analysis.suite_map import parse_suite
from prism_lsp.judge.stability import Instability
from prism_lsp.judge.wording import compared
from prism_lsp.model.outcome import ProgramResult, TestResult
from prism_lsp.model.task import Candidate

if TYPE_CHECKING:  # the report's models load only when a run needs them (tests/cli/test_startup_imports.py)
    from prism_lsp.model.report import FindingKind

TEACH_OVERSPEC = "The statement allows this behaviour; assert only what it requires."
TEACH_REACHED = "It reaches the bug but does not judge it: strengthen this check."
TEACH_UNREACHED = "No test reaches the code this candidate changes: add an input that does."
TEACH_UNSTABLE = "Assert on what the statement fixes (sort before comparing, freeze the clock, seed the random source)."


@dataclass
class Finding:
    kind: FindingKind
    line: int
    end_line: int
    message: str
    candidates: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    rule: str | None = None
    count: int | None = None  # programs the finding is about (shown at every reveal level)
    # The candidate ids it is about at every reveal level, never shown: what witnesses are matched by.
    about: tuple[str, ...] = ()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _who(cands: list[Candidate], label: str, reveal: str) -> str:
    if reveal == "full":
        named = ", ".join(f"`{c.id}`" + (f" ({c.note})" if c.note else "") for c in cands)
        return f"{label} candidate{'s' if len(cands) > 1 else ''} {named}"
    return _plural(len(cands), f"{label} candidate")


def _ids(cands: list[Candidate], reveal: str) -> list[str]:
    """The candidates a finding may carry: none below `full`, so no consumer can leak them."""
    return [c.id for c in cands] if reveal == "full" else []


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _first_test_line(results: list[ProgramResult]) -> int:
    lines = [t.def_line for r in results for t in r.tests if t.def_line]
    return min(lines) if lines else 1


def rejects_valid(
    pairs: list[tuple[Candidate, ProgramResult]], reveal: str, suite_text: str | None = None
) -> list[Finding]:
    by_line: dict[int, list[tuple[Candidate, TestResult]]] = defaultdict(list)
    for cand, res in pairs:
        if not cand.valid or res.outcome != "fail":
            continue
        for t in res.tests:
            if t.outcome == "fail":
                by_line[t.line or t.def_line or 1].append((cand, t))
    sources = _assert_sources(suite_text) if suite_text is not None and by_line and reveal == "full" else {}
    findings = []
    for line, hits in sorted(by_line.items()):
        cands = list({c.id: c for c, _ in hits}.values())
        msg = f"rejects {_who(cands, 'valid', reveal)}"
        if reveal == "full":
            msg += f" — {_details(hits, sources.get(line))}"
        findings.append(
            Finding(
                "rejects-valid",
                line,
                line,
                f"{msg}. {TEACH_OVERSPEC}",
                _ids(cands, reveal),
                sorted({t.name for _, t in hits}),
                count=len(cands),
            )
        )
    return findings


def _assert_sources(text: str) -> dict[int, str]:
    """1-based line -> source of the one assert statement touching it (lines shared by two asserts
    are left out: the runner's line cannot say which of them failed)."""
    seen: dict[int, list[str]] = defaultdict(list)
    for a in parse_suite(text).all_assertions():
        for line in range(a.span.start_line, a.span.end_line + 1):
            seen[line].append(a.text)
    return {line: found[0] for line, found in seen.items() if len(found) == 1}


def _details(hits: list[tuple[Candidate, TestResult]], source: str | None) -> str:
    """`expected 3, got 2 from `a`, `b`` per distinct value pair; pytest's own line otherwise."""
    groups: dict[str, list[str]] = {}
    for cand, t in hits:
        cmp = compared(t.message, source)
        key = cmp.phrase() if cmp is not None else f"`{cand.id}`: {_first_line(t.message)}"
        ids = groups.setdefault(key, [])
        if cmp is not None and cand.id not in ids:
            ids.append(cand.id)
    return "; ".join(key + (" from " + ", ".join(f"`{i}`" for i in ids) if ids else "") for key, ids in groups.items())


def accepts_invalid(pairs: list[tuple[Candidate, ProgramResult]], reveal: str) -> list[Finding]:
    """One finding per invalid candidate let through, said once: on the test where a check can be
    added (the first test reaching its change that every valid candidate passes, as the suggestion
    that answers it picks), naming the other tests that reach it too."""
    accepted = [(c, r) for c, r in pairs if not c.valid and r.outcome == "pass"]
    if not accepted:
        return []
    first = _first_test_line([r for _, r in pairs])
    valid_fail = {t.name.split("[", 1)[0] for c, r in pairs if c.valid for t in r.tests if t.outcome != "pass"}
    # Keyed by the test acted on and the others reaching: the cases of a parametrized test are one test.
    by_test: dict[tuple[int, str, tuple[str, ...]], list[Candidate]] = defaultdict(list)
    unreached: list[Candidate] = []
    unknown: list[Candidate] = []
    for cand, res in accepted:
        reached = sorted({(t.def_line or first, t.name.split("[", 1)[0]) for t in res.tests if t.reached_change})
        if reached:
            line, name = next(((ln, n) for ln, n in reached if n not in valid_fail), reached[0])
            by_test[(line, name, tuple(n for _, n in reached if n != name))].append(cand)
        elif any(t.reached_change is None for t in res.tests):
            unknown.append(cand)
        else:
            unreached.append(cand)
    findings = []
    for (line, name, others), cands in sorted(by_test.items()):
        also = f"; {', '.join(others)} reach{'es' if len(others) == 1 else ''} it too" if others else ""
        findings.append(
            Finding(
                "accepts-invalid",
                line,
                line,
                f"lets {_who(cands, 'invalid', reveal)} through{also}. {TEACH_REACHED}",
                _ids(cands, reveal),
                [name, *others],
                count=len(cands),
                about=tuple(c.id for c in cands),
            )
        )
    # No test reaches the change (advise an input that does), or its reach is unknown (said plainly).
    for group, why in ((unreached, f". {TEACH_UNREACHED}"), (unknown, ": no test rejects it.")):
        if group:
            findings.append(
                Finding(
                    "accepts-invalid",
                    first,
                    first,
                    f"lets {_who(group, 'invalid', reveal)} through{why}",
                    _ids(group, reveal),
                    count=len(group),
                    about=tuple(c.id for c in group),
                )
            )
    return findings


def misses_baseline(baseline: ProgramResult) -> list[Finding]:
    if baseline.outcome != "pass":
        return []
    return [
        Finding(
            "misses-baseline",
            t.def_line or 1,
            t.def_line or 1,
            "passes on the initial (buggy) program: the suite never exposes the bug the task is about. "
            "Add an input where the initial program is wrong.",
            tests=[t.name],
        )
        for t in baseline.tests
        if t.outcome == "pass"
    ]


def execution_errors(
    baseline: ProgramResult, pairs: list[tuple[Candidate, ProgramResult]], reveal: str, baseline_detects: bool = False
) -> list[Finding]:
    """Programs the suite could not run on; the initial program's error is left out when it is the
    suite's verdict there (`baseline_detects`: a test importing what the fix adds, a hang)."""
    # Error text comes from inside the programs' runs: a candidate's is shown at `full` only; below,
    # errors group by line and reason, and only the initial program's own text may be quoted.
    groups: dict[tuple[int, str, str], list[tuple[str, Candidate | None]]] = defaultdict(list)
    quoted: dict[tuple[int, str, str], str] = {}
    first = _first_test_line([baseline, *[r for _, r in pairs]])
    programs: list[tuple[str, ProgramResult, Candidate | None]] = (
        [] if baseline_detects else [("initial program", baseline, None)]
    )
    programs += [(c.id, r, c) for c, r in pairs]
    for name, res, cand in programs:
        errors: list[tuple[int, str, str]] = []
        if res.outcome == "error" and not any(t.outcome == "error" for t in res.tests):
            errors.append((res.line or first, res.reason or "error", _first_line(res.message)))
        errors += [
            (t.line or t.def_line or first, t.reason or "error", _first_line(t.message))
            for t in res.tests
            if t.outcome == "error"
        ]
        for line, reason, message in dict.fromkeys(errors):
            key = (line, reason, message if reveal == "full" else "")
            groups[key].append((name, cand))
            if reveal == "full" or cand is None:
                quoted.setdefault(key, message)
    findings = []
    for key, who in sorted(groups.items()):
        line, reason, _ = key
        message = quoted.get(key, "")
        text = f"could not run on {_programs(who, reveal)}: {reason}" + (f" — {message}" if message else "")
        findings.append(
            Finding(
                "execution-error",
                line,
                line,
                text,
                [n for n, c in who if c is not None] if reveal == "full" else [],
                count=len(who),
            )
        )
    return findings


def _programs(who: list[tuple[str, Candidate | None]], reveal: str) -> str:
    """`initial program, half-even` (full), `initial program, 2 valid candidates` (labels),
    `3 programs` (counts)."""
    if reveal == "counts":
        return _plural(len(who), "program")
    if reveal == "full":
        return ", ".join(name for name, _ in who)
    parts = ["initial program"] if any(c is None for _, c in who) else []
    for label in ("valid", "invalid"):
        n = sum(1 for _, c in who if c is not None and c.label == label)
        if n:
            parts.append(_plural(n, f"{label} candidate"))
    return ", ".join(parts)


def unstable_tests(
    unstable: tuple[Instability, ...], pairs: list[tuple[Candidate, ProgramResult]], reveal: str, first: int
) -> list[Finding]:
    """One finding per test seen with two outcomes: what differed, on which program (as the level names it)."""
    by_id = {c.id: c for c, _ in pairs}
    found = []
    for i in unstable:
        cand = by_id.get(i.program)
        if cand is None:
            where = "the initial program"
        elif reveal == "full":
            where = f"`{cand.id}`"
        else:
            where = "" if reveal == "counts" else f"a {cand.label} candidate"
        line = i.def_line or first
        found.append(
            Finding(
                "unstable",
                line,
                line,
                f"its verdict does not hold from run to run: {i.differed(where)}. {TEACH_UNSTABLE}",
                _ids([cand], reveal) if cand is not None else [],
                [i.test.split("[", 1)[0]],
                count=1,
            )
        )
    return found


def build_findings(
    baseline: ProgramResult,
    pairs: list[tuple[Candidate, ProgramResult]],
    reveal: str = "full",
    suite_text: str | None = None,
    baseline_detects: bool = False,
    unstable: tuple[Instability, ...] = (),
    unsettled: set[str] | None = None,
) -> list[Finding]:
    """Every runtime finding for one panel run, in line order (`suite_text` lets messages say
    which value was expected; `baseline_detects` that an error on the initial program detects it).

    A test in `unstable` gets a finding of its own and judges nothing: no `rejects-valid` on it, no
    `accepts-invalid` for the candidates in `unsettled` (whose verdicts rest on such a test)."""
    # Every level places findings on the lines that judged wrongly; `labels` and `counts`
    # only say how many candidates, never which, nor the values they produced.
    shaky = {i.def_line for i in unstable if i.def_line}
    if shaky:
        pairs_judged = [(c, _without(r, shaky)) for c, r in pairs if c.id not in (unsettled or set())]
        baseline = _without(baseline, shaky)
    else:
        pairs_judged = pairs
    found = rejects_valid(pairs_judged, reveal, suite_text) + accepts_invalid(pairs_judged, reveal)
    found += misses_baseline(baseline) + execution_errors(baseline, pairs, reveal, baseline_detects)
    found += unstable_tests(unstable, pairs, reveal, _first_test_line([baseline, *[r for _, r in pairs]]))
    return sorted(found, key=lambda f: (f.line, f.kind))


def _without(result: ProgramResult, lines: set[int]) -> ProgramResult:
    """`result` without the tests defined on `lines` (unstable ones judge nothing)."""
    return replace(result, tests=tuple(t for t in result.tests if t.def_line not in lines))

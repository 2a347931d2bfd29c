"""Witness search and suggestions over the fixtures' weak, blind and overfit suites.

    python bench/witness.py [--rounds 2]

For each suite: run the panel, then time `suggest` (witness search, probes, verification
runs) from the finished panel run to its verified suggestions. Round 1 has warm runners
and built trees but an empty probe cache; later rounds also reuse probe results (as the
language server does while the author edits). Prints the share of runtime findings
(accepts-invalid, rejects-valid, misses-baseline) that got a verified suggestion, and
p50/p95 of the time per round.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.judge.findings import build_findings
from prism_lsp.model.run import Suite
from prism_lsp.suggest import suggest
from prism_lsp.tasks import load_task

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUITES = ("test_weak.py", "test_blind.py", "test_overfit.py")
KINDS = ("accepts-invalid", "rejects-valid", "misses-baseline")


def _answered(finding, found) -> bool:
    """A finding has a verified suggestion: its line (rejects-valid), its candidates (accepts-invalid),
    or the initial program (misses-baseline) are what some suggestion fixes."""
    fixes = set().union(*(s.fixes for s in found)) if found else set()
    if finding.kind == "rejects-valid":
        return any(s.kind == "rejects-valid" and s.line == finding.line for s in found)
    if finding.kind == "accepts-invalid":
        return set(finding.candidates) <= fixes
    return "initial" in fixes


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    times: dict[int, list[float]] = {r: [] for r in range(args.rounds)}
    total = answered = 0
    with tempfile.TemporaryDirectory() as cache, EngineSession(Path(cache)) as session:
        for folder in sorted(p for p in FIXTURES.iterdir() if (p / "expected.toml").is_file()):
            task = load_task(folder)
            for name in SUITES:
                path = folder / "suites" / name
                suite = Suite(task.suite_rel(path), path.read_text())
                run = session.run(task, suite)
                session.run(task, suite)  # runners and trees warm, as after the author's last keystroke
                findings = [f for f in build_findings(run.baseline, run.results, "full", suite.text) if f.kind in KINDS]
                for r in range(args.rounds):
                    start = time.perf_counter()
                    found = suggest(session, task, suite, run)
                    times[r].append(time.perf_counter() - start)
                ok = sum(_answered(f, found) for f in findings)
                total += len(findings)
                answered += ok
                print(
                    f"{task.id:16} {name:16} findings {len(findings)} answered {ok} suggestions {len(found)} "
                    + " ".join(f"{times[r][-1] * 1000:.0f} ms" for r in range(args.rounds)),
                    flush=True,
                )
    print(f"\nfindings with a verified suggestion: {answered}/{total} = {100 * answered / max(total, 1):.1f} %")
    for r in range(args.rounds):
        label = "round 1 (probe cache empty)" if r == 0 else f"round {r + 1} (probe cache warm)"
        print(f"{label}: p50 {statistics.median(times[r]) * 1000:.0f} ms, p95 {_pct(times[r], 0.95) * 1000:.0f} ms")


if __name__ == "__main__":
    main()

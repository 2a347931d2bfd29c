"""`prism gate [PATH] [--base REV] [--fix REV]`: judge a change's regression tests, exit by the gate.

Exit status is the contract: 0 the gate passes, 1 it does not (a rate below its threshold, a
regression against `--baseline`, or nothing judged), 2 a usage error (no change, a dirty tree
with `--fix`, a bad option or baseline file). As a pre-commit pre-push hook (PRE_COMMIT_FROM_REF
and PRE_COMMIT_TO_REF set, when no --base/--fix is given) it judges what the push adds.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from prism_lsp.sandbox.select import NAMES as SANDBOXES


def percent(text: str) -> float:
    """argparse type of the `--fail-under-*` options: a percentage, 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}")
    return value


def add_gate_parser(sub, common) -> None:
    from prism_lsp.console.args import MAX_REPEAT, add_report_options, positive_int, repeats, seconds
    from prism_lsp.gate import DEFAULT_INVALID_REJECTION, DEFAULT_VALID_ACCEPTANCE

    g = sub.add_parser("gate", help="judge a change's test modules on the panel of its fix; exit 1 below the gate")
    g.add_argument("path", nargs="?", default=".", help="a folder of the repository (default: here)")
    g.add_argument(
        "--base",
        help="where the change starts: a revision, or the branch it will merge into "
        "(their merge base is taken; default: HEAD, or the fix's parent)",
    )
    g.add_argument("--fix", help="the commit holding the change (default: the working tree)")
    g.add_argument(
        "--fail-under-invalid-rejection",
        type=percent,
        metavar="PCT",
        help=f"fail when under PCT%% of the invalid candidates are rejected (default {DEFAULT_INVALID_REJECTION:g})",
    )
    g.add_argument(
        "--fail-under-valid-acceptance",
        type=percent,
        metavar="PCT",
        help="fail when under PCT%% of the other valid candidates are accepted "
        f"(default {DEFAULT_VALID_ACCEPTANCE:g}; not checked when there are none)",
    )
    g.add_argument(
        "--require-jsf", action="store_true", default=None, help="fail unless every suite reaches joint success"
    )
    g.add_argument(
        "--baseline",
        metavar="FILE",
        help="a stored `prism gate --json` report: fail only where a "
        "rate went down from it (thresholds are not applied)",
    )
    g.add_argument("--sandbox", choices=SANDBOXES, help="override the manifest's sandbox")
    g.add_argument("--timeout", type=seconds, help="seconds per program run, > 0")
    g.add_argument("--workers", type=positive_int, help="programs run at once, >= 1 (default: cores)")
    g.add_argument(
        "--repeat",
        type=repeats,
        default=1,
        help=f"run every program under N hash seeds (0..N-1), 1..{MAX_REPEAT}; a test with two outcomes "
        "is reported unstable (default 1: only failures on valid candidates are rerun)",
    )
    g.add_argument("--max-invalid", type=positive_int, help="mutants to keep when building (default 5)")
    g.add_argument("--seed", type=int, help="mutants drawn by this seed (default 0)")
    g.add_argument(
        "--mutate",
        choices=("changed", "all"),
        help="mutate only the lines the fix changed (default) or every line of the files it changed",
    )
    add_report_options(g)
    common(g)
    g.set_defaults(func=cmd_gate)


CONFIGURABLE = (
    "sandbox",
    "timeout",
    "workers",
    "fail_under_invalid_rejection",
    "fail_under_valid_acceptance",
    "require_jsf",
    "mutate",
    "max_invalid",
    "seed",
)


def _given(value, default):
    return default if value is None else value


def _range(args: argparse.Namespace) -> tuple[str | None, str | None]:
    if args.base is None and args.fix is None and os.environ.get("PRE_COMMIT_FROM_REF"):
        return os.environ["PRE_COMMIT_FROM_REF"], os.environ.get("PRE_COMMIT_TO_REF") or None
    return args.base, args.fix


def _judge_suites(session, change, options) -> list[dict]:
    from prism_lsp.analysis.suite_map import parse_suite
    from prism_lsp.console.args import suite_for as _suite_for
    from prism_lsp.judge.weak_findings import weak_assertion_findings
    from prism_lsp.scoring.reports.records import error_of, record_of
    from prism_lsp.witness.report import report_with_witnesses

    records = []
    for path in change.suites:
        suite = _suite_for(change.task, path)
        problem = parse_suite(suite.text).problem
        if problem is not None:
            records.append(error_of(change.task.id, suite.rel_path, path, f"not run: {problem}"))
            continue
        _, report = report_with_witnesses(session, change.task, suite, options, weak_assertion_findings(suite.text))
        records.append(record_of(report, path))
    return records


def _cache_line(cache: dict[str, int]) -> str:
    return (
        f"results: {cache['programs_run']} program(s) run, {cache['programs_cached']} from cache "
        f"({cache['tests_run']} test(s) run, {cache['tests_cached']} from cache)"
    )


def _print(out: Console, change, records: list[dict], verdict, cache: dict[str, int]) -> None:
    said = lambda text, style=None: out.print(escape(text), style=style, highlight=False, soft_wrap=True)  # noqa: E731
    cands = change.task.candidates
    built = "" if change.mutants_built is None else f", {change.mutants_built} of them mutants of the changed lines"
    said(
        f"gate: task {change.task.id} (base {change.base[:12]}, fix {change.fix}); panel: "
        f"{sum(c.valid for c in cands)} valid, {sum(not c.valid for c in cands)} invalid{built}"
    )
    for note in change.notes:
        said(f"note: {note}", "yellow")
    for r in records:
        if r["status"] != "ok":
            said(f"  {r['suite']}: error: {r['error']}", "red")
            continue
        m, report = r["report"]["metrics"], r["report"]
        pct = lambda v: "n/a" if v is None else f"{100 * v:.0f}%"  # noqa: E731
        said(
            f"  {r['suite']}: detects the bug {'yes' if m['detects_baseline'] else 'no'} · reference "
            f"{'accepted' if m['rar'] else 'rejected'} · invalid rejection {pct(m['invalid_rejection'])} · "
            f"valid acceptance {pct(m['valid_acceptance'])} · JSF {'yes' if m['jsf'] else 'no'}"
        )
        for f in report["findings"]:
            said(f"    line {f['line']} [{f['kind']}] {f['message']}")
    said("  " + _cache_line(cache))
    for check in verdict.checks:
        said(("  pass: " if check.passed else "  FAIL: ") + check.text, None if check.passed else "red")
    said("gate: passed" if verdict.passed else "gate: failed", "bold green" if verdict.passed else "bold red")


def cmd_gate(args: argparse.Namespace, out: Console, err: Console) -> int:
    from prism_lsp.console.args import UsageError, cached_session, usable_cache_dir
    from prism_lsp.engine.session import RunOptions
    from prism_lsp.gate.change import prepare
    from prism_lsp.gate.checks import BaselineError, Thresholds, judge, load_baseline
    from prism_lsp.model.project_config import apply_defaults, project_config
    from prism_lsp.scoring.reports.outputs import write_reports
    from prism_lsp.scoring.reports.records import SCHEMA_VERSION

    try:
        baseline = load_baseline(Path(args.baseline)) if args.baseline else None
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    # The command line over [tool.prism] over Prism's defaults.
    apply_defaults(args, project_config(Path(args.path)), CONFIGURABLE)
    d = Thresholds()
    thresholds = Thresholds(
        invalid_rejection=_given(args.fail_under_invalid_rejection, d.invalid_rejection),
        valid_acceptance=_given(args.fail_under_valid_acceptance, d.valid_acceptance),
        require_jsf=bool(args.require_jsf),
    )
    base, fix = _range(args)
    options = RunOptions(sandbox=args.sandbox, timeout_s=args.timeout, repeat=args.repeat)
    started = time.perf_counter()
    with cached_session(usable_cache_dir(args.cache_dir), args, Path(args.path), err) as session:
        change = prepare(
            Path(args.path),
            session,
            base=base,
            fix=fix,
            sandbox=args.sandbox,
            timeout_s=args.timeout,
            seed=_given(args.seed, 0),
            max_invalid=_given(args.max_invalid, 5),
            mutate=_given(args.mutate, "changed"),
        )
        judged = session.counts.as_dict()
        prepared = time.perf_counter()
        records = _judge_suites(session, change, options)
        ms = lambda since: round((time.perf_counter() - since) * 1000)  # noqa: E731
        # The task and its mutants (`prepare`), and the suites judged on the panel (what the cache saves).
        timing = {"prepare": round((prepared - started) * 1000), "judge": ms(prepared), "total": ms(started)}
        # The suites' runs only (not the panel build's): programs and tests run, and from the cache.
        cache = {k: v - judged[k] for k, v in session.counts.as_dict().items()}
    verdict = judge(records, thresholds, baseline)
    write_reports(
        records,
        args,
        command="gate",
        root=change.init.root,
        title="prism gate",
        checks=[*verdict.lines(), _cache_line(cache)],
        task=change.task,
        cache=session.cache,
    )
    if args.json:
        cands = change.task.candidates
        print(
            json.dumps(
                {
                    "schema_version": SCHEMA_VERSION,
                    "command": "gate",
                    "passed": verdict.passed,
                    "task": change.task.id,
                    "base": change.base,
                    "fix": change.fix,
                    "panel": {
                        "valid": sum(c.valid for c in cands),
                        "invalid": sum(not c.valid for c in cands),
                        "mutants_built": change.mutants_built,
                    },
                    "checks": [{"passed": c.passed, "text": c.text} for c in verdict.checks],
                    "cache": cache,
                    "timing_ms": timing,
                    "summary": verdict.summary,
                    "notes": change.notes,
                    "suites": records,
                },
                indent=2,
            )
        )
    else:
        _print(out, change, records, verdict, cache)
    return 0 if verdict.passed else 1

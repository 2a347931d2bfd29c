"""What measuring ΔC and entry coverage costs: a warm panel run and a one-test edit, with and without it.

Every program's run probes the statements of its changed lines and of the entry points' spans
(runner/_prism_lines.py) and the report counts them on the reference (engine/change_coverage.py).
"off" sends no entry point and builds no coverage (the probes of changed lines stay: they were
there before, for `reached_change`). Medians over interleaved rounds (off, on, off, on...) of a
warm whole-panel run with its report and of a one-test edit through the incremental scheduler.

    python bench/coverage_cost.py [--repeat 7] [--tasks cart-total,top-tags] [--suites test_strong.py]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from confirm_cost import MAX_ROUNDS, one_test_edit  # noqa: E402

from prism_lsp.analysis.suite_map import parse_suite  # noqa: E402
from prism_lsp.engine import change_coverage, panel  # noqa: E402
from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.judge.report import build_report  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.scheduler.incremental import IncrementalRunner, SessionPanelRunner  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402


@contextmanager
def measuring(on: bool):
    """Coverage measured (the code as it ships) or not at all (no entry probes, no counting)."""
    saved = panel.entry_specs, change_coverage.coverage_fields
    if not on:
        panel.entry_specs = lambda task, text: []  # type: ignore[assignment]
        change_coverage.coverage_fields = lambda *a: {"change_coverage": None, "entry_coverage": None}  # type: ignore[assignment]
    try:
        yield
    finally:
        panel.entry_specs, change_coverage.coverage_fields = saved


def measure(session: EngineSession, task_dir: Path, suite_name: str, rounds: int) -> dict[str, float]:
    task = load_task(task_dir)
    text = (task_dir / "suites" / suite_name).read_text()
    suite = Suite(task.suite_rel(task_dir / "suites" / suite_name), text)
    options = RunOptions(confirm=False)
    modes = {"off": False, "on": True}
    times: dict[str, list[float]] = {f"{k}-{m}": [] for k in ("panel", "edit") for m in modes}
    schedulers = {m: IncrementalRunner(SessionPanelRunner(session)) for m in modes}
    for m, on in modes.items():
        with measuring(on):
            session.run(task, suite, options)
            schedulers[m].run(task, suite, parse_suite(text), options)
    shown = None
    for i in range(rounds):
        for m, on in modes.items():
            with measuring(on):
                start = time.perf_counter()
                report = build_report(task, suite, session.run(task, suite, options))
                times[f"panel-{m}"].append((time.perf_counter() - start) * 1000)
                shown = report.change_coverage if on else shown
                edited = replace(suite, text=one_test_edit(text, i))
                start = time.perf_counter()
                schedulers[m].run(task, edited, parse_suite(edited.text), options)
                times[f"edit-{m}"].append((time.perf_counter() - start) * 1000)
    medians: dict[str, float] = {k: statistics.median(v) for k, v in times.items()}
    medians["dc"] = shown.ratio if shown is not None and shown.ratio is not None else float("nan")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help=f"rounds per measurement, 1..{MAX_ROUNDS}")
    parser.add_argument("--tasks", default="cart-total,top-tags,mean-rounded")
    parser.add_argument("--suites", default="test_strong.py")
    args = parser.parse_args()
    rounds = max(1, min(args.repeat, MAX_ROUNDS))
    print(f"median ms over {rounds} interleaved rounds; ratio = on / off")
    print(f"{'task':<14}{'suite':<16}{'panel':>7}{'+cov':>7}{'ratio':>7}{'edit':>7}{'+cov':>7}{'ratio':>7}{'ΔC':>6}")
    with tempfile.TemporaryDirectory() as cache, EngineSession(Path(cache)) as session:
        for task in args.tasks.split(","):
            for suite in args.suites.split(","):
                m = measure(session, ROOT / "fixtures" / task, suite, rounds)
                print(
                    f"{task:<14}{suite:<16}{m['panel-off']:>7.0f}{m['panel-on']:>7.0f}"
                    f"{m['panel-on'] / m['panel-off']:>7.2f}{m['edit-off']:>7.0f}{m['edit-on']:>7.0f}"
                    f"{m['edit-on'] / m['edit-off']:>7.2f}{m['dc']:>6.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

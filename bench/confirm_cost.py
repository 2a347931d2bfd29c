"""What confirming failures costs: a warm panel run and a one-test edit, with and without it.

Before a failure on a valid candidate becomes `rejects-valid`, Prism reruns that test on that
program under another hash seed (engine/confirm.py). On the fixtures' suites this measures, per
task and suite, the median of a warm whole-panel run (`EngineSession.run`) and of a one-test
edit through the incremental scheduler (only the edited test reruns), with `confirm` off and on.
The confirming runners (seed 1) are warmed first, as a language server's are after its first run.

    python bench/confirm_cost.py [--repeat 5] [--tasks slugify,top-tags] [--suites test_strong.py,test_overfit.py]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prism_lsp.analysis.suite_map import parse_suite  # noqa: E402
from prism_lsp.engine.session import EngineSession, RunOptions  # noqa: E402
from prism_lsp.model.run import Suite  # noqa: E402
from prism_lsp.scheduler.incremental import IncrementalRunner, SessionPanelRunner  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402

MAX_ROUNDS = 50


def one_test_edit(text: str, i: int) -> str:
    """The last assertion of the suite with a new comment: only its test reruns (as bench/lsp_latency.py)."""
    lines = text.rstrip("\n").split("\n")
    last = max(j for j, line in enumerate(lines) if line.lstrip().startswith("assert"))
    lines[last] = lines[last].split("  # bench")[0] + f"  # bench {i}"
    return "\n".join(lines) + "\n"


def measure(session: EngineSession, task_dir: Path, suite_name: str, rounds: int) -> dict[str, float]:
    """Medians of both modes, their rounds interleaved (off, on, off, on...) so load that other work
    puts on the machine falls on both alike."""
    task = load_task(task_dir)
    path = task_dir / "suites" / suite_name
    text = path.read_text()
    suite = Suite(task.suite_rel(path), text)
    modes = {"": RunOptions(confirm=False), "+c": RunOptions(confirm=True)}
    times: dict[str, list[float]] = {f"{kind}{m}": [] for kind in ("panel", "edit") for m in modes}
    schedulers = {m: IncrementalRunner(SessionPanelRunner(session)) for m in modes}
    reruns = 0
    for m, options in modes.items():
        session.run(task, suite, options)  # warm runners of both seeds, trees built
        schedulers[m].run(task, suite, parse_suite(text), options)
    for i in range(rounds):
        for m, options in modes.items():
            start = time.perf_counter()
            run = session.run(task, suite, options)
            times[f"panel{m}"].append((time.perf_counter() - start) * 1000)
            reruns = max(reruns, run.reruns)
            edited = replace(suite, text=one_test_edit(text, i))
            start = time.perf_counter()
            schedulers[m].run(task, edited, parse_suite(edited.text), options)
            times[f"edit{m}"].append((time.perf_counter() - start) * 1000)
    return {**{k: statistics.median(v) for k, v in times.items()}, "reruns": reruns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help=f"rounds per measurement, 1..{MAX_ROUNDS}")
    parser.add_argument("--tasks", default="slugify,top-tags,cart-total")
    parser.add_argument("--suites", default="test_strong.py,test_overfit.py")
    args = parser.parse_args()
    rounds = max(1, min(args.repeat, MAX_ROUNDS))
    print(f"median ms over {rounds} rounds; +c = failures on valid candidates confirmed under seed 1")
    print(f"{'task':<16}{'suite':<18}{'panel':>8}{'panel+c':>9}{'edit':>8}{'edit+c':>8}{'reruns':>8}")
    with tempfile.TemporaryDirectory() as cache, EngineSession(Path(cache)) as session:
        for task in args.tasks.split(","):
            for suite in args.suites.split(","):
                m = measure(session, ROOT / "fixtures" / task, suite, rounds)
                print(
                    f"{task:<16}{suite:<18}{m['panel']:>8.0f}{m['panel+c']:>9.0f}{m['edit']:>8.0f}"
                    f"{m['edit+c']:>8.0f}{m['reruns']:>8.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

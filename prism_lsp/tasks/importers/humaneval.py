"""HumanEval-style problems (JSON lines: `task_id`, `prompt`, `canonical_solution`, `test`, `entry_point`).

The program is one file, `solution.py`:
- initial state: the prompt with a stub body (`raise NotImplementedError`), so a
  suite that calls the function fails on it;
- reference: prompt + `canonical_solution`;
- extra candidates (`--candidates FILE`): rows with `task_id`, `id`, `label` and a
  `completion` (appended to the prompt, as HumanEval samples are) or `code` (the whole file).

The problem's own `test` (a `check(candidate)` function) becomes the suite
`tests/test_<entry_point>.py`, one pytest test calling `check(<entry_point>)`. The
file may be the package's gzipped `HumanEval.jsonl.gz` as it is.
"""

from __future__ import annotations

from pathlib import Path

from prism_lsp.tasks.importers.common import CandidateSpec, TaskImportError, TaskSpec, slug
from prism_lsp.tasks.importers.jsonl import pick, read_rows, require_str
from prism_lsp.tasks.importers.side_candidates import read_side_candidates

FIELDS = ("task_id", "prompt", "canonical_solution", "test", "entry_point")
SOLUTION = "solution.py"
STUB = "    raise NotImplementedError  # the initial state: not implemented yet\n"


def _source(prompt: str, body: str, where: str, key: str) -> str:
    text = prompt + body
    if not text.endswith("\n"):
        text += "\n"
    try:
        compile(text, f"{where}:{key}", "exec")
    except SyntaxError as exc:
        raise TaskImportError(
            where, key, f"prompt + {key} is not valid Python: {exc.msg} (line {exc.lineno})"
        ) from None
    return text


def suite_text(test: str, entry_point: str) -> str:
    """A pytest file running the problem's `check` against the solution's entry point.

    `check` may use the prompt's helpers too (HumanEval/32 calls `poly`, /38 `encode_cyclic`,
    /50 `encode_shift`), so the suite takes every public name of the solution, then the entry
    point by name (in case the solution's `__all__` leaves it out)."""
    return (
        f"from solution import *  # noqa: F403  (the prompt's helpers, which `check` may call)\n"
        f"from solution import {entry_point}\n\n{test.strip()}\n\n\n"
        f"def test_{entry_point}():\n    check({entry_point})\n"
    )


def read_humaneval(src: Path, *, instance: str | None = None, candidates: Path | None = None) -> TaskSpec:
    """Read one problem (by `task_id`, or the file's only one) into a `TaskSpec`."""
    src = Path(src).resolve()
    where, row = pick(read_rows(src), "task_id", instance, src)
    for key in FIELDS:
        require_str(row, key, where, allow_empty=key == "canonical_solution")
    prompt, entry = row["prompt"], row["entry_point"]
    if not entry.isidentifier():
        raise TaskImportError(where, "entry_point", f"expected a Python identifier, got {entry!r}")
    if f"def {entry}" not in prompt:
        raise TaskImportError(where, "entry_point", f"the prompt defines no function {entry!r}")
    initial = _source(prompt, STUB, where, "prompt")
    reference = CandidateSpec(
        id="reference",
        label="valid",
        reference=True,
        origin=(where, "canonical_solution"),
        files={SOLUTION: _source(prompt, row["canonical_solution"], where, "canonical_solution")},
        note="the canonical solution",
    )

    def files_for(side: dict, side_where: str) -> dict[str, str | bytes]:
        key = "code" if "code" in side else "completion"
        if not isinstance(side[key], str):
            raise TaskImportError(side_where, key, f"expected a string (Python source), got {side[key]!r:.60}")
        return {SOLUTION: _source("" if key == "code" else prompt, side[key], side_where, key)}

    panel = [reference] + (read_side_candidates(candidates, row["task_id"], files_for=files_for) if candidates else [])
    return TaskSpec(
        id=slug(row["task_id"]),
        source=src,
        statement=prompt.strip(),
        initial_files={SOLUTION: initial},
        candidates=panel,
        entry=[f"solution:{entry}"],
        suites={f"tests/test_{entry}.py": suite_text(row["test"], entry)},
    )

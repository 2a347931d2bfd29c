"""`prism score`: many suites, one table and the aggregate metrics of DESIGN.md."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from prism_lsp.engine.panel import Suite
from prism_lsp.engine.session import EngineSession, RunOptions
from prism_lsp.engine.metrics import aggregate
from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import find_task_root, load_task


def _pairs(specs: list[str], suite_name: str | None) -> list[tuple[Path, Path]]:
    pairs = []
    for spec in specs:
        if ":" in spec and not Path(spec).exists():
            task, suite = spec.split(":", 1)
            pairs.append((Path(task), Path(suite)))
        elif Path(spec).is_dir():
            if not suite_name:
                raise ManifestError(spec, "", "a task folder needs --suite-name (the suite path inside each task)")
            folders = [Path(spec)] if (Path(spec) / "prism.toml").is_file() else sorted(
                p.parent for p in Path(spec).glob("*/prism.toml"))
            pairs += [(f, f / suite_name) for f in folders]
        else:
            root = find_task_root(Path(spec))
            if root is None:
                raise ManifestError(spec, "", "no prism.toml above this suite")
            pairs.append((root, Path(spec)))
    return pairs


def score_suites(specs: list[str], suite_name: str | None, out: Console, err: Console, *, sandbox: str | None,
                 cache_dir: Path | None, as_json: bool) -> int:
    rows = []
    with EngineSession(cache_dir) as session:
        for task_dir, suite_path in _pairs(specs, suite_name):
            task = load_task(task_dir)
            if not suite_path.is_file():
                raise ManifestError(suite_path, "", "suite file does not exist")
            suite = Suite(task.suite_rel(suite_path), suite_path.read_text(encoding="utf-8"))
            report = session.report(task, suite, RunOptions(sandbox=sandbox))
            rows.append({"task": task.id, "suite": suite.rel_path, "metrics": report.metrics.model_dump(),
                         "timing_ms": report.timing_ms})
    summary = aggregate([r["metrics"] for r in rows])
    if as_json:
        print(json.dumps({"suites": rows, "summary": summary}, indent=2))
    else:
        from prism_lsp.console.render import render_score

        render_score(rows, summary, out)
    return 0

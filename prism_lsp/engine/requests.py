"""What a runner is asked to run for one program: `run_request`, and the entry points every
program is probed at alike (`entry_specs`). Used by the panel run, its confirmation, the coverage
measure's verifier run and the result cache's key."""

from __future__ import annotations

import functools
import secrets
from pathlib import Path

from prism_lsp.engine import suite_code
from prism_lsp.materialize import ProgramTree
from prism_lsp.model.run import Suite
from prism_lsp.model.task import Task
from prism_lsp.runner._prism_protocol import RunRequest


def run_request(
    tree: ProgramTree,
    suite: Suite,
    task: Task,
    timeout_s: float | None = None,
    tests: list[str] | None = None,
    config: tuple[str, str] | None = None,
) -> RunRequest:
    """The request for one program. Its id is random, never the candidate's: what runs in the
    sandbox must not learn which candidate it is (the panel is the answer key). `config` is
    the initial state's pytest configuration (`pytest_config.initial_config`)."""
    code_tag, code = suite_code.compiled(suite.rel_path, suite.text)
    return RunRequest(
        id=secrets.token_hex(8),
        tree=str(tree.path),
        suite_rel=suite.rel_path,
        suite_text=suite.text,
        changed={k: sorted(v) for k, v in tree.changed.items()},
        timeout_s=timeout_s or task.timeout_s,
        memory_mb=task.memory_mb,
        tests=tests,
        command=task.test_command,
        config_rel=config[0] if config else None,
        config_text=config[1] if config else None,
        pythonpath=list(task.pythonpath),
        entry=entry_specs(task, suite.text),
        suite_code_tag=code_tag,
        suite_code=code,
    )


def entry_specs(task: Task, suite_text: str) -> list[str]:
    """The entry points (`module:function`) whose spans entry coverage counts: the manifest's, else
    those the suite calls (as witness search finds them). Sent to every program alike, so no
    program can tell the reference by its probes."""
    return list(_entry_specs(task.initial, task.entry, task.pythonpath, suite_text))


@functools.lru_cache(maxsize=64)
def _entry_specs(initial: Path, declared: tuple[str, ...], roots: tuple[str, ...], suite_text: str) -> tuple[str, ...]:
    from prism_lsp.witness.entry import entry_points

    try:
        entries = entry_points(suite_text, initial, declared, roots)
    except (OSError, ValueError, RecursionError):
        return ()
    return tuple(dict.fromkeys(e.target for e in entries if e.local_names or declared))

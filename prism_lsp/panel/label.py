"""Label candidates that are not in the panel yet (mutants, samples) by running the verifier on them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Candidate, Task
from prism_lsp.panel.verifier import Judgement, run_verifier


def staged_candidates(folder: Path, diffs: dict[str, str], origin: str) -> list[Candidate]:
    """Write each diff to `folder` and describe it as a candidate (label undecided: "invalid")."""
    out = []
    for cid, diff in diffs.items():
        path = folder / f"{cid}.diff"
        path.write_bytes(diff.encode("utf-8"))
        out.append(Candidate(id=cid, label="invalid", reference=False, kind="patch", source=path, origin=origin))
    return out


def label_diffs(session: EngineSession, task: Task, diffs: dict[str, str], origin: str, *,
                sandbox: str | None = None, timeout_s: float | None = None) -> dict[str, Judgement]:
    """The verifier's judgement of each diff (id -> judgement), in one panel run."""
    if not diffs:
        run_verifier(session, task, [], sandbox=sandbox, timeout_s=timeout_s)  # still check the verifier
        return {}
    with tempfile.TemporaryDirectory(prefix="prism-label-") as tmp:
        candidates = staged_candidates(Path(tmp), diffs, origin)
        judgements = run_verifier(session, task, candidates, sandbox=sandbox, timeout_s=timeout_s)
    return {j.candidate.id: j for j in judgements}

"""Label candidates that are not in the panel yet (mutants, samples) by running the verifier on them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.manifest import Origin
from prism_lsp.model.task import Candidate, Task
from prism_lsp.panel.verifier import Judgement, run_verifier
from prism_lsp.panel.witnessing import probe_candidates


def staged_candidates(folder: Path, diffs: dict[str, str], origin: Origin) -> list[Candidate]:
    """Write each diff to `folder` and describe it as a candidate (label undecided: "invalid")."""
    out = []
    for cid, diff in diffs.items():
        path = folder / f"{cid}.diff"
        path.write_bytes(diff.encode("utf-8"))
        out.append(Candidate(id=cid, label="invalid", reference=False, kind="patch", source=path, origin=origin))
    return out


def label_diffs(
    session: EngineSession,
    task: Task,
    diffs: dict[str, str],
    origin: Origin,
    *,
    sandbox: str | None = None,
    timeout_s: float | None = None,
) -> dict[str, Judgement]:
    """The verifier's judgement of each diff (id -> judgement), in one panel run."""
    if not diffs:
        run_verifier(session, task, [], sandbox=sandbox, timeout_s=timeout_s)  # still check the verifier
        return {}
    with tempfile.TemporaryDirectory(prefix="prism-label-") as tmp:
        candidates = staged_candidates(Path(tmp), diffs, origin)
        judgements = run_verifier(session, task, candidates, sandbox=sandbox, timeout_s=timeout_s)
    return {j.candidate.id: j for j in judgements}


def label_by_witnesses(
    session: EngineSession, task: Task, diffs: dict[str, str], origin: Origin, *, sandbox: str | None = None
) -> dict[str, Judgement]:
    """Without a verifier: invalid when a witness tells it apart from every valid candidate, valid
    when none does (it differs at most where they disagree), no label when it could not be probed."""
    with tempfile.TemporaryDirectory(prefix="prism-label-") as tmp:
        candidates = staged_candidates(Path(tmp), diffs, origin)
        probing = probe_candidates(session, task, candidates, sandbox=sandbox)
    out = {}
    for c in candidates:
        signature = probing.signatures.get(c.id)
        witness = probing.witnesses.get(c.id)
        if c.id in probing.unprobed:
            out[c.id] = Judgement(
                c,
                None,
                error=f"its smallest probe calls all failed ({probing.unprobed[c.id]}): it does not import, or hangs",
            )
        elif witness is not None:
            got = next(iter(witness.got.values()), "?")
            out[c.id] = Judgement(c, "invalid", failed=(f"{witness.assertion_call} == {witness.expected}, got {got}",))
        elif not probing.entries:
            out[c.id] = Judgement(c, None, error="no entry point with inputs in the task's suites to probe")
        elif signature is None:
            out[c.id] = Judgement(c, None, error="its tree could not be built (does the patch apply?)")
        elif all(b[3] is not None for b in signature):
            first = next(b[3] for b in signature)
            out[c.id] = Judgement(c, None, error=f"every probe call failed ({first}): it does not import or hangs")
        else:
            out[c.id] = Judgement(c, "valid")
    return out

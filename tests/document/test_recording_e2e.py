"""The recorded panel runs the pure tests build on still match real runs (real runners, real sandbox)."""

from __future__ import annotations

import json

import pytest

from tests.document.recorded import ALL, Recording, answers, real_check, recorded_check


@pytest.mark.parametrize("recording", ALL, ids=lambda r: r.name)
def test_the_recording_matches_a_real_run(tmp_path, recording: Recording):
    real = real_check(tmp_path / "real", recording=recording)
    assert answers(real) == json.loads(recording.file.read_text()), (
        "the runner now answers differently: rerecord with `python -m tests.document.recorded`"
    )
    replayed = recorded_check(tmp_path / "replayed", recording=recording)
    assert replayed.report is not None and real.report is not None
    # How the run went (its time, the failures it confirmed under another seed) is not in a recording.
    how = {"timing_ms", "confirmed_with", "reruns"}
    assert replayed.report.model_dump(exclude=how) == real.report.model_dump(exclude=how)

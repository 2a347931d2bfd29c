"""One filter of error reasons at every reveal level: a word of the runner's vocabulary is kept, any
other word a program writes (it runs in the same process as the runner's reporter) is `error`."""

import pytest

from prism_lsp.engine.results import program_from_runner
from prism_lsp.model.outcome import REASONS, known_reason
from prism_lsp.runner._prism_protocol import Result


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        (None, None),
        ("timeout", "timeout"),
        ("process-limit", "process-limit"),
        ("collection", "collection"),
        ("reference", "error"),  # a lowercase word the old regex let through at `full`
        ("candidate-is-valid", "error"),
        ("TIMEOUT", "error"),
        (7, "error"),
    ],
)
def test_known_reason(written, kept):
    assert known_reason(written) == kept


def test_a_result_from_the_runner_keeps_only_a_known_reason():
    forged = Result(id="x", outcome="error", reason="valid-candidate", message="m")
    assert program_from_runner(forged).reason == "error"
    assert program_from_runner(Result(id="x", outcome="error", reason="timeout", message="m")).reason == "timeout"
    assert "timeout" in REASONS

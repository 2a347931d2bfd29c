"""The adaptive author of issue 21: a suite of 256 tests, test k failing only on the program whose
`sha256(solution.py)` starts with byte k, so whichever lines a report flags name the candidates'
hash buckets (run 2 would then pass exactly on the valid ones without judging `add` at all).

`bucket_suite(shift)` maps test k to bucket (k + shift) % 256: two suites with different shifts
fail on the same programs, each program on exactly one test, so a report that shows only
whole-suite numbers is the same for both; one that shows a line, test or assertion of a
candidate's run differs.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import write_task

SUITE = "test_buckets.py"


def bucket_task(root: Path, reveal: str | None = None) -> Path:
    """3 valid (one the reference) and 3 invalid implementations of `add`, each with its own source hash."""
    valid = ["a + b", "b + a", "sum((a, b))"]
    invalid = ["a - b", "a * b", "a + b + 1"]
    candidates = [
        {
            "id": f"v{i}",
            "label": "valid",
            "reference": i == 0,
            "files": {"solution.py": f"def add(a, b):\n    return {body}\n"},
        }
        for i, body in enumerate(valid)
    ]
    candidates += [
        {"id": f"i{i}", "label": "invalid", "files": {"solution.py": f"def add(a, b):\n    return {body}\n"}}
        for i, body in enumerate(invalid)
    ]
    return write_task(
        root,
        initial={"solution.py": "def add(a, b):\n    return a\n"},
        candidates=candidates,
        task_id="buckets",
        extra_task=f'reveal = "{reveal}"' if reveal else "",
    )


def bucket_suite(shift: int = 0) -> str:
    head = (
        "import hashlib\nimport pathlib\n\n"
        "BUCKET = hashlib.sha256(pathlib.Path(__file__).with_name('solution.py').read_bytes()).digest()[0]\n"
    )
    tests = "".join(f"\n\ndef test_bucket_{k}():\n    assert BUCKET != {(k + shift) % 256}\n" for k in range(256))
    return head + tests


def write_suites(task: Path) -> tuple[Path, Path]:
    """The same attack twice, with test k on bucket k and on bucket k + 1."""
    a, b = task / SUITE, task / "test_buckets_shifted.py"
    a.write_text(bucket_suite(0))
    b.write_text(bucket_suite(1))
    return a, b

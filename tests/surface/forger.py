"""A task whose suite tries to carry each candidate's secret back to the author, and to drive
the author's terminal: through test names, assertion messages, fixture and execution errors,
printed output, escape sequences and direction overrides.

Each candidate's solution.py ends with a comment naming its secret; the suite reads its own
program's source and puts that secret everywhere it can.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import write_task

# `prism` as the CLI tests start it: this interpreter, so the checkout under test is what runs.
PRISM = [sys.executable, "-c", "from prism_lsp.cli import prism_main; prism_main()"]
SECRETS = {"ref": "cand-secret-ref", "other": "cand-secret-other", "bad": "cand-secret-bad"}
BASELINE_SECRET = "initial-words"  # the initial program is no secret: it may be shown
CONTROL = ("\x1b", "\x07", "\x9b", "\u202e", "\r")  # what must never reach a terminal, report or editor
SUITE = "test_forger.py"

SUITE_TEXT = """\
import pathlib

import pytest

from solution import f

SRC = pathlib.Path(__file__).with_name("solution.py").read_text()
SECRET = SRC.rsplit("# ", 1)[1].strip()
BAD = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\u202e\\r\\x9b1m"


@pytest.fixture
def broken():
    raise RuntimeError("fixture saw " + SECRET + BAD)


@pytest.mark.parametrize("code", [SECRET + BAD])
def test_named_after_the_program(code):
    assert f(2) == 3, "message carries " + code


def test_rejects_one_valid():
    print(BAD + "printed " + SECRET)
    assert "other" not in SECRET, "rejected " + SECRET + BAD


def test_fixture_error(broken):
    pass


def test_execution_error():
    raise ValueError("error carries " + SECRET + BAD)
"""


def forger_task(root: Path, reveal: str | None = None) -> Path:
    """The task folder (manifest reveal level `reveal`, default unset = full)."""
    return write_task(
        root,
        initial={"solution.py": f"def f(x):\n    return x  # {BASELINE_SECRET}\n"},
        candidates=[
            {
                "id": "ref",
                "label": "valid",
                "reference": True,
                "files": {"solution.py": f"def f(x):\n    return x + 1  # {SECRETS['ref']}\n"},
            },
            {
                "id": "other",
                "label": "valid",
                "files": {"solution.py": f"def f(x):\n    return 1 + x  # {SECRETS['other']}\n"},
            },
            {
                "id": "bad",
                "label": "invalid",
                "files": {"solution.py": f"def f(x):\n    return x * 2 - 1  # {SECRETS['bad']}\n"},
            },
        ],
        extra_task=f'reveal = "{reveal}"' if reveal else "",
        suites={SUITE: SUITE_TEXT},
    )


def leaks(text: str) -> list[str]:
    """The candidates' secrets (and ids used as secrets) found in `text`."""
    return [s for s in SECRETS.values() if s in text]


def controls(text: str) -> list[str]:
    return [repr(c) for c in CONTROL if c in text]

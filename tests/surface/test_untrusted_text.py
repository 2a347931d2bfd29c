"""Text from a sandbox is data: control sequences and direction overrides removed, length capped
(`plain`, and the runner answers parsed through it; the protocol itself checks types)."""

from __future__ import annotations

from prism_lsp.engine.results import program_from_runner
from prism_lsp.model.untrusted import NAME_LIMIT, TEXT_LIMIT, plain
from prism_lsp.runner._prism_protocol import Result
from tests.surface.forger import controls


def test_escape_sequences_go_whole_not_only_their_escape_byte():
    assert plain("a\x1b[31;1mred\x1b[0m b") == "ared b"
    assert plain("x\x1b]0;window title\x07y") == "xy"  # OSC ended by BEL
    assert plain("x\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\y") == "xlinky"  # hyperlink, ended by ST
    assert plain("x\x9b2Jy\x9d0;t\x9cz") == "xyz"  # 8-bit CSI and OSC
    assert plain("x\x1bPq#0;2;0;0;0\x1b\\y") == "xy"  # DCS (sixel)
    assert plain("x\x1bcy\x1b7z") == "xyz"  # reset, save cursor
    assert plain("keep \x1b]0;never ended") == "keep "


def test_other_controls_and_direction_overrides_go_newlines_and_tabs_stay():
    assert plain("ok\r\x08\x07\x00\x7f\x85 line\n\tnext") == "ok line\n\tnext"
    assert plain("if access \u202e\u2066// admin\u2069\u202c") == "if access // admin"
    assert plain("naïve — 日本 ✓") == "naïve — 日本 ✓"


def test_length_is_capped_and_odd_values_become_text():
    assert len(plain("x" * 10 * TEXT_LIMIT)) == TEXT_LIMIT
    assert plain("y" * 400, NAME_LIMIT).endswith("…")
    assert plain(None) == "" and plain(12) == "12"
    assert plain("caf\udce9") == "caf?"  # a lone surrogate (a non-UTF-8 file name) cannot be printed


def test_a_runner_answer_is_sanitised_where_it_enters_the_host():
    bad = "\x1b]0;pwned\x07\x1b[2J\u202e"
    result = program_from_runner(
        Result.from_dict(
            {
                "id": "p",
                "outcome": "fail",
                "reason": "Not A Word" + bad,
                "message": "m" + bad,
                "line": -4,
                "tests": [
                    {
                        "name": "test_a" + bad,
                        "outcome": "fail",
                        "message": bad * 3,
                        "line": 0,
                        "reason": "x" * 40,
                        "assertions": [{"line": 3, "outcome": "fail", "explanation": "e" + bad}],
                        "duration_ms": -1,
                    },
                ],
            }
        )
    )
    assert result.outcome == "fail" and result.reason == "error" and result.line is None
    assert result.message == "m"
    (test,) = result.tests
    assert test.name == "test_a" and test.message == "" and test.line is None and test.reason == "error"
    assert test.duration_ms == 0 and test.assertions[0].explanation == "e"
    assert "pwned" not in repr(result)
    assert controls(result.message + test.name + test.message + test.assertions[0].explanation) == []

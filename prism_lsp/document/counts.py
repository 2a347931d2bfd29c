"""How Prism says its panel counts, in one place: status, lenses, quick-fix titles, CLI.

Valid candidates are counted without the reference, as `valid_acceptance` counts them
(the reference has its own flag, RAR); every phrase says so, so that "valid 1/4" in the
status bar and "valid 4/4" in a quick fix are never two readings of the same panel.
Invalid candidates are all counted.
"""

from __future__ import annotations

REFERENCE_ASIDE = "besides the reference"


def valid_count(accepted: int, total: int) -> str:
    """`valid 1/4 besides the reference`: valid candidates accepted, the reference not counted."""
    return f"valid {accepted}/{total} {REFERENCE_ASIDE}"


def invalid_count(rejected: int, total: int) -> str:
    """`invalid 3/5`: invalid candidates rejected."""
    return f"invalid {rejected}/{total}"


def panel_line(accepted: int, valid: int, rejected: int, invalid: int) -> str:
    """`valid 1/4 besides the reference · invalid 3/5`, the counts of a whole suite or one test."""
    return f"{valid_count(accepted, valid)} · {invalid_count(rejected, invalid)}"

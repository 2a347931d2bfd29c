"""The strictest reveal level wins wherever levels meet (server start, manifest, settings)."""

import pytest

from prism_lsp.judge.reveal import strictest


@pytest.mark.parametrize(
    "levels, expected",
    [
        (("full", "counts"), "counts"),
        (("counts", "full"), "counts"),
        (("labels", "full"), "labels"),
        (("labels", "counts", "full"), "counts"),
        (("full", None), "full"),
        ((None, "labels"), "labels"),
        ((), "full"),
    ],
)
def test_strictest(levels, expected):
    assert strictest(*levels) == expected

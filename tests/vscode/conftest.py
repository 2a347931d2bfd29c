"""Marks a failed test so the code-server test can save the page as it was when it failed."""

from __future__ import annotations

import pytest

FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report

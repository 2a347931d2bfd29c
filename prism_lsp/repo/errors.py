"""The one error `prism init` reports: a precise, one-line message, nothing written."""

from __future__ import annotations


class InitError(Exception):
    """Why no task was made (or updated); the repository and any existing task are untouched."""

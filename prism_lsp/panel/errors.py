"""The error the panel builder's verifier reports: its own module, so the command line can catch
it without loading the engine."""

from __future__ import annotations


class VerifierError(Exception):
    """The verifier cannot be trusted to label (or is missing); the message names it."""

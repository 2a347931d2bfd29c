"""Prism: judge a pytest suite against a panel of valid and invalid implementations."""

__version__ = "0.1.0"

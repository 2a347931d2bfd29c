"""Backends that start the runner isolated: bubblewrap, docker, none."""

from prism_lsp.sandbox.base import Backend, Limits, RunnerProcess, SandboxUnavailable
from prism_lsp.sandbox.select import chosen_sandbox, resolve_backend

__all__ = ["Backend", "Limits", "RunnerProcess", "SandboxUnavailable", "chosen_sandbox", "resolve_backend"]

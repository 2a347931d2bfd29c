"""The sandbox names, said once: the manifest, `[tool.prism]`, the editor settings, the command
line's and MCP's choices and the backend selection all derive from here.

`none` runs programs unisolated on this machine, so only whoever starts Prism may choose it: the
files a repository or task brings can name only the isolated ones (`IsolatedSandbox`).
"""

from __future__ import annotations

from typing import Literal, get_args

IsolatedSandbox = Literal["auto", "bubblewrap", "docker"]
SandboxName = Literal[IsolatedSandbox, "none"]
SANDBOX_NAMES: tuple[str, ...] = get_args(SandboxName)  # ("auto", "bubblewrap", "docker", "none")

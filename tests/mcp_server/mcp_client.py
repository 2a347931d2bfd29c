"""How the MCP tests start `prism mcp` (as an agent's configuration does) and call its tools."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

from tests.conftest import FIXTURES


def server_params(tmp_path: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "LANG")}
    # `prism mcp` exactly as an agent's MCP configuration starts it.
    return StdioServerParameters(
        command=shutil.which("prism") or "prism",
        args=["mcp", "--root", str(FIXTURES), "--cache-dir", str(tmp_path / "cache"), *extra],
        env=env,
    )


async def call_tool(client, name: str, args: dict) -> dict:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    return result.structured_content


def tool_text(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)

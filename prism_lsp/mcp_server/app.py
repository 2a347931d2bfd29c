"""`prism mcp`: the MCP wiring (official `mcp` SDK, stdio) over `judge`.

Only translation lives here: tool signatures, errors turned into tool errors, one engine
session kept warm for the server's life. The reveal level and the folders an agent may
name come from the command line; no argument of a tool can change them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.mcp_server import judge
from prism_lsp.mcp_server.budget import RunBudget
from prism_lsp.model.manifest import ManifestError
from prism_lsp.sandbox import SandboxUnavailable

INSTRUCTIONS = (
    "Prism judges a pytest suite against a task's initial (buggy) program and a hidden panel of valid and invalid "
    "implementations. A good suite fails on the initial program (metrics.detects_baseline), accepts every valid candidate "
    "and rejects every invalid one (metrics.jsf). `over_specification` lines rejected valid candidates: assert only what "
    "the statement requires there. `under_assertion` entries let invalid candidates through: strengthen the check "
    "(reached=true) or add an input that reaches the bug (reached=false). At reveal `counts` only whole-suite "
    "numbers come back; at `sealed` (the default) only the suite's outcome on the initial program (initial_outcome) "
    "and the static hints. `runs_left` counts down the operator's run budget for the task, when there is one."
)


def build_server(config: judge.JudgeConfig, session: EngineSession):
    """The MCP server with Prism's tools, judging with `session` at `config`'s reveal level."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server = MCPServer("prism", instructions=INSTRUCTIONS)
    # Every tool only reads: it runs suites in the sandbox and writes no file of the author's, the
    # same arguments give the same answer, and nothing leaves this machine.
    judging = ToolAnnotations.model_validate({"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False})

    def guarded(call):
        try:
            return call()
        except (judge.ToolError, ManifestError, SandboxUnavailable, OSError, UnicodeDecodeError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=judging)
    def list_tasks() -> list[judge.TaskInfo]:
        """The tasks this server judges: id, folder, statement, panel size, reveal level."""
        return guarded(lambda: judge.list_tasks(config))

    @server.tool(annotations=judging)
    def run_suite(
        task: str, suite_path: str | None = None, suite_text: str | None = None, suite_rel: str | None = None
    ) -> judge.SuiteJudgement:
        """Run a pytest suite on the task's initial program and panel.

        task: the task folder (holding prism.toml), absolute or relative to the server's first folder.
        suite_path: a test file under the task folder; or suite_text: the suite's source, run at
        suite_rel (a path inside the program tree, default tests/test_agent.py).
        """
        return guarded(
            lambda: judge.run_suite(
                session, config, task, suite_path=suite_path, suite_text=suite_text, suite_rel=suite_rel
            )
        )

    @server.tool(annotations=judging)
    def list_suggestions(
        task: str, suite_path: str | None = None, suite_text: str | None = None, suite_rel: str | None = None
    ) -> judge.Suggestions:
        """Verified edits of the suite that fix its findings (each run on the panel before it is offered),
        with a unified diff each. None at reveal `counts` or `sealed`. Arguments as for run_suite."""
        return guarded(
            lambda: judge.list_suggestions(
                session, config, task, suite_path=suite_path, suite_text=suite_text, suite_rel=suite_rel
            )
        )

    return server


def cmd_mcp(args: argparse.Namespace, out, err) -> int:
    from prism_lsp.console.args import UsageError, usable_cache_dir

    roots = tuple(Path(r).resolve() for r in (args.root or ["."]))
    for root in roots:
        if not root.is_dir():
            raise UsageError(f"--root {root} is not a folder")
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise UsageError("`prism mcp` needs the MCP SDK: pip install 'prism-lsp[mcp]'") from None
    cache_dir = usable_cache_dir(args.cache_dir)
    budget = RunBudget(cache_dir / "mcp-budget", args.budget) if args.budget else None
    config = judge.JudgeConfig(
        roots=roots, reveal=args.reveal, sandbox=args.sandbox, cache_dir=cache_dir, budget=budget
    )
    with EngineSession(config.cache_dir) as session:
        build_server(config, session).run("stdio")
    return 0

"""The MCP server: Prism's panel as tools for coding agents (`prism mcp`, stdio).

A coding agent writing tests in a loop asks Prism to judge its suite and gets structured
data back: the over-specification signals (`rejects-valid`: the line and the message) apart
from the under-assertion signals (`accepts-invalid`: how many, and whether a test reached the
bug), plus the metrics. The reveal level is fixed by whoever starts the server (`--reveal`,
default `sealed`: only the suite's outcome on the initial program), with an optional run
budget per task (`--budget`); nothing a tool call sends can raise either, since an agent
under evaluation must not read the answer key. `judge` is the pure core; `app` is the MCP wiring only.
"""

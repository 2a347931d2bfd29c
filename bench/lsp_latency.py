"""Latency of Prism's language server, through a real LSP client over stdio.

Scripted editing sessions over the fixtures' suites measure the time from `didChange`
(debounce set to 0, so "after debounce") to the `publishDiagnostics` for that version:

  (a) one-test edit: one assertion of one test changes (only that test should rerun);
  (b) whole-file change: every test and the shared code change (a full panel run).

Each is measured for the normal server (warm runners + per-test result cache) and for the
same server with both disabled (`bench/cold_server.py`). Also prints the server's RSS.

    python bench/lsp_latency.py [--rounds 10] [--tasks mean-rounded,slugify]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


class Bench:
    """One server process and a client that timestamps every publication."""

    def __init__(self, env: dict[str, str], cold: bool = False) -> None:
        self.env = env
        self.command = [str(Path(__file__).with_name("cold_server.py"))] if cold else ["-m", "prism_lsp"]
        self.client = LanguageClient("prism-bench", "1")
        self.arrived: dict[tuple[str, int], float] = {}
        self.settled: set[tuple[str, int]] = set()
        # uri -> when the first `prism/status` counting programs in arrived (`done` > 0 while running)
        self.first_in: dict[str, float] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.arrived[(params.uri, params.version)] = time.perf_counter()
            self.event.set()

        @self.client.feature("prism/status")
        def status(params) -> None:
            if params.state == "running" and (params.done or 0) > 0:
                self.first_in.setdefault(params.uri, time.perf_counter())
            if params.state != "running":
                self.settled.update(k for k in self.arrived if k[0] == params.uri)
                self.event.set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def log(params) -> None:
            pass

    async def start(self) -> None:
        await self.client.start_io(sys.executable, *self.command, env=self.env)
        await self.client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), initialization_options={"debounceMs": 0})
        )
        self.client.initialized(types.InitializedParams())

    async def wait(self, uri: str, version: int) -> float:
        while (uri, version) not in self.settled:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), float(os.environ.get("BENCH_WAIT", "120")))
        return self.arrived[(uri, version)]

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        return uri

    async def change(self, uri: str, version: int, text: str) -> float:
        start = time.perf_counter()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return (await self.wait(uri, version) - start) * 1000

    async def lenses(self, uri: str) -> tuple[float, int]:
        """(ms, count) of a `textDocument/codeLens` request, as VS Code sends after each run."""
        start = time.perf_counter()
        found = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return (time.perf_counter() - start) * 1000, len(found or [])

    def rss_mb(self) -> float:
        pid = self.client._server.pid  # the server process (its runners are separate, sandboxed)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def one_test_edit(text: str, i: int) -> str:
    """Change the last assertion of the last test (a comment keeps its meaning, changes its hash)."""
    lines = text.rstrip("\n").split("\n")
    last = max(j for j, line in enumerate(lines) if line.lstrip().startswith("assert"))
    lines[last] = lines[last].split("  # bench")[0] + f"  # bench {i}"
    return "\n".join(lines) + "\n"


def whole_file(texts: list[str], i: int) -> str:
    """Another suite of the task, with changed shared code: every test reruns."""
    return f"BENCH_ROUND = {i}\n" + texts[i % len(texts)]


async def session(task: str, cold: bool, rounds: int, cache: str) -> dict[str, list[float] | float]:
    env = {**os.environ, "PRISM_CACHE_DIR": cache}
    bench = Bench(env, cold)
    await bench.start()
    suites = FIXTURES / task / "suites"
    path = suites / "test_overfit.py"
    base = path.read_text()
    others = [base] + [(suites / n).read_text() for n in ("test_strong.py", "test_weak.py", "test_blind.py")]
    uri = bench.open(path, base)
    await bench.wait(uri, 1)
    version, one, whole = 1, [], []
    for i in range(rounds):
        version += 1
        one.append(await bench.change(uri, version, one_test_edit(base, i)))
    for i in range(rounds):
        version += 1
        whole.append(await bench.change(uri, version, whole_file(others, i)))
    rss = bench.rss_mb()
    await bench.stop()
    return {"one": one, "whole": whole, "rss": rss}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10, help="edits of each kind per task and mode")
    parser.add_argument("--tasks", default="mean-rounded,slugify,top-scorers")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="prism-bench-")
    print(
        f"prism-lsp latency, didChange -> publishDiagnostics, debounce 0, {os.cpu_count()} cores, "
        f"{args.rounds} edits of each kind per task; tasks: {args.tasks}"
    )
    print(f"{'mode':<26}{'edit':<18}{'p50 ms':>9}{'p95 ms':>9}{'n':>5}")
    rss = {}
    for cold in (False, True):
        mode = "cold (no cache, no warm)" if cold else "prism (warm + cache)"
        one: list[float] = []
        whole: list[float] = []
        for task in args.tasks.split(","):
            result = await session(task, cold, args.rounds, cache)
            one += result["one"]
            whole += result["whole"]
            rss[mode] = max(rss.get(mode, 0.0), result["rss"])
        for name, values in (("one-test edit", one), ("whole-file change", whole)):
            print(f"{mode:<26}{name:<18}{statistics.median(values):>9.0f}{pct(values, 0.95):>9.0f}{len(values):>5}")
    for mode, mb in rss.items():
        print(f"server RSS ({mode}): {mb:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())

"""`prism-lsp` start → ready, and a first open → first results, cold.

Speaks JSON-RPC over stdio itself (no client library). Times (1) spawning the server to its
answer to `initialize` (interpreter, imports, pygls set-up, the handler), and (2) what a user
sees the first time: spawn, open a fixture suite, until `prism/status` says "running" and until
it brings the panel's counts, with an empty tree cache (runners started, trees built: all cold).

    python bench/server_start.py [--repeat 7]

Prints the medians (and min/max) in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(stream) -> dict:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b"\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    if not length:
        raise RuntimeError("the server closed its output before answering initialize")
    return json.loads(stream.read(length))


def start_once() -> float:
    """Milliseconds from spawning `python -m prism_lsp` to its `initialize` result."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "prism_lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=ROOT,
    )
    try:
        proc.stdin.write(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}},
                }
            )
        )
        proc.stdin.flush()
        while (message := _read_message(proc.stdout)).get("id") != 1:
            pass  # notifications (logs) before the answer
        elapsed = (time.perf_counter() - start) * 1000
        if "result" not in message:
            raise RuntimeError(f"initialize failed: {message.get('error')}")
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(timeout=10)
        return elapsed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def measure(repeat: int) -> list[float]:
    return [start_once() for _ in range(repeat)]


SUITE = ROOT / "fixtures" / "mean-rounded" / "suites" / "test_overfit.py"


def first_results_once() -> tuple[float, float]:
    """(ms to "running", ms to the first panel counts) from spawning the server, with a fresh cache."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="prism-cold-") as cache:
        env = dict(
            os.environ,
            PRISM_CACHE_DIR=cache,
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        )
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "prism_lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
        )
        try:
            send = proc.stdin.write
            send(
                _frame(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "processId": os.getpid(),
                            "rootUri": ROOT.as_uri(),
                            "capabilities": {},
                            "initializationOptions": {"debounceMs": 0},
                        },
                    }
                )
            )
            proc.stdin.flush()
            while _read_message(proc.stdout).get("id") != 1:
                pass
            send(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            send(
                _frame(
                    {
                        "jsonrpc": "2.0",
                        "method": "textDocument/didOpen",
                        "params": {
                            "textDocument": {
                                "uri": SUITE.as_uri(),
                                "languageId": "python",
                                "version": 1,
                                "text": SUITE.read_text(),
                            }
                        },
                    }
                )
            )
            proc.stdin.flush()
            running = None
            while True:
                message = _read_message(proc.stdout)
                if "id" in message and "method" in message:  # a request from the server: answer it
                    send(_frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
                    proc.stdin.flush()
                    continue
                if message.get("method") != "prism/status":
                    continue
                params = message["params"]
                if params.get("state") == "running" and running is None:
                    running = (time.perf_counter() - start) * 1000
                if params.get("state") == "idle" and params.get("metrics"):
                    return running or 0.0, (time.perf_counter() - start) * 1000
        finally:
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    times = measure(args.repeat)
    print(
        f"prism-lsp start -> initialize answered: median {statistics.median(times):.0f} ms "
        f"(min {min(times):.0f}, max {max(times):.0f}, {args.repeat} starts, {os.cpu_count()} cores)"
    )
    firsts = [first_results_once() for _ in range(max(1, args.repeat // 2))]
    running = [r for r, _ in firsts]
    results = [d for _, d in firsts]
    print(
        f"first open, cold (fresh cache): 'running' after median {statistics.median(running):.0f} ms, panel "
        f"results after median {statistics.median(results):.0f} ms (min {min(results):.0f}, max {max(results):.0f}, "
        f"{len(firsts)} starts)"
    )


if __name__ == "__main__":
    main()

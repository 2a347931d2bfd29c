"""`prism-lsp` start → ready: the time from spawning the server to its answer to `initialize`.

Speaks JSON-RPC over stdio itself (no client library), so what is timed is the
server's own start: interpreter, imports, pygls set-up, the `initialize` handler.

    python bench/server_start.py [--repeat 7]

Prints the median (and min/max) of N starts in milliseconds.
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
    proc = subprocess.Popen([sys.executable, "-m", "prism_lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    try:
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": os.getpid(), "rootUri": None, "capabilities": {}}}))
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    times = measure(args.repeat)
    print(f"prism-lsp start -> initialize answered: median {statistics.median(times):.0f} ms "
          f"(min {min(times):.0f}, max {max(times):.0f}, {args.repeat} starts, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()

"""`prism-lsp` starts for the ways editors launch it."""

import json
import shutil
import subprocess
import sys

import pytest


def _initialize(argv: list[str]) -> dict:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}},
        }
    )
    message = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(message)
        proc.stdin.flush()
        headers = {}
        while line := proc.stdout.readline().strip():
            key, _, value = line.partition(b":")
            headers[key.strip().lower()] = value.strip()
        assert b"content-length" in headers, proc.stderr.read().decode()
        return json.loads(proc.stdout.read(int(headers[b"content-length"])))
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize(
    "argv",
    [
        [sys.executable, "-m", "prism_lsp"],
        [sys.executable, "-m", "prism_lsp", "--stdio"],
        ["prism-lsp", "--stdio"],
    ],
    ids=["module", "module --stdio", "console script --stdio"],
)
def test_server_answers_initialize(argv):
    if argv[0] == "prism-lsp":
        argv = [shutil.which("prism-lsp"), *argv[1:]]
    reply = _initialize(argv)
    assert reply["id"] == 1 and "capabilities" in reply["result"]
    assert reply["result"]["serverInfo"]["name"].lower().startswith("prism")

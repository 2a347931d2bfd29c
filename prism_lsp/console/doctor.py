"""`prism doctor`: check and explain the environment, with the fix for each problem."""

from __future__ import annotations

import json
import subprocess
import sys

from rich.console import Console

from prism_lsp.sandbox.base import AGENT
from prism_lsp.sandbox.cgroup import cgroup_mode


def _check_bwrap() -> dict:
    from prism_lsp.sandbox.bubblewrap import INSTALL_HINT, probe

    reason = probe()
    return {"name": "bubblewrap", "ok": reason is None, "detail": "can create namespaces" if reason is None else reason,
            "fix": "" if reason is None else INSTALL_HINT}


def _check_docker() -> dict:
    try:
        import docker

        client = docker.from_env(timeout=5)
        version = client.version().get("Version", "?")
        return {"name": "docker", "ok": True, "detail": f"engine {version} reachable", "fix": ""}
    except Exception as exc:  # any failure to reach the engine is the same answer for the user
        return {"name": "docker", "ok": False, "detail": f"engine not reachable ({type(exc).__name__})",
                "fix": "install docker.io and start dockerd (optional unless a task brings an image)"}


def _check_runner() -> dict:
    try:
        proc = subprocess.Popen([sys.executable, str(AGENT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        proc.stdin.close()
        proc.wait(timeout=10)
        info = json.loads(line)
        return {"name": "runner", "ok": True, "detail": f"Python {info['python']}, pytest {info['pytest']}", "fix": ""}
    except Exception as exc:
        return {"name": "runner", "ok": False, "detail": f"the runner does not start: {exc}",
                "fix": f"{sys.executable} -m pip install pytest"}


def _check_cgroups() -> dict:
    mode = cgroup_mode()
    return {"name": "limits", "ok": True,
            "detail": f"per-sandbox cgroup ({mode}): process-count and memory limits hold for the whole tree" if mode
            else "no writable cgroup: memory is limited per process (rlimit); process count is bounded by the "
                 "per-run timeout and reaping",
            "fix": "" if mode else "run as a user allowed to create cgroups (or under systemd-run --user --scope)"}


def run_doctor(console: Console, as_json: bool = False) -> int:
    checks = [_check_bwrap(), _check_docker(), _check_runner(), _check_cgroups()]
    usable = checks[0]["ok"] or checks[1]["ok"]
    if as_json:
        print(json.dumps({"ok": usable and checks[2]["ok"], "checks": checks}, indent=2))
    else:
        for c in checks:
            mark = "[green]ok[/]" if c["ok"] else "[red]problem[/]"
            console.print(f"{mark:>20}  [bold]{c['name']}[/]: {c['detail']}")
            if c["fix"]:
                console.print(f"{'':>10}fix: {c['fix']}")
        if not usable:
            console.print("[red]No sandbox backend is usable: install bubblewrap or start Docker.[/]")
    return 0 if usable and checks[2]["ok"] else 1

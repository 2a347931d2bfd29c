"""`prism doctor`: check and explain the environment, with the fix for each problem."""

from __future__ import annotations

import json
import os
import platform
import sys

from rich.console import Console
from rich.markup import escape

from prism_lsp.model.reveal import INFERABLE
from prism_lsp.runner._prism_isolation import seccomp_filter
from prism_lsp.sandbox.cgroup import cgroup_mode
from prism_lsp.sandbox.guarantees import TRUSTED, UNTRUSTED, guarantees, threat_model


def _check_bwrap() -> dict:
    from prism_lsp.sandbox.bubblewrap import INSTALL_HINT, SANDBOX_UID, probe

    reason = probe()
    works = "can create namespaces" + (f"; runners run as uid {SANDBOX_UID}, not root" if os.geteuid() == 0 else "")
    return {
        "name": "bubblewrap",
        "ok": reason is None,
        "detail": works if reason is None else reason,
        "fix": "" if reason is None else INSTALL_HINT,
    }


def _check_docker() -> dict:
    try:
        import docker

        client = docker.from_env(timeout=5)
        version = client.version().get("Version", "?")
        return {"name": "docker", "ok": True, "detail": f"engine {version} reachable", "fix": ""}
    except Exception as exc:  # any failure to reach the engine is the same answer for the user
        return {
            "name": "docker",
            "ok": False,
            "detail": f"engine not reachable ({type(exc).__name__})",
            "fix": "install docker.io and start dockerd (optional unless a task brings an image)",
        }


def _check_runner(sandbox: str) -> dict:
    """Start the real runner in the chosen sandbox and read the versions it reports from inside."""
    from prism_lsp.engine.pool import WARM, RunnerPool
    from prism_lsp.materialize.cache import default_cache_dir
    from prism_lsp.runner._prism_protocol import Ready
    from prism_lsp.sandbox import SandboxUnavailable, resolve_backend

    try:
        backend = resolve_backend(sandbox, default_cache_dir())
    except SandboxUnavailable as exc:
        return {"name": "runner", "ok": False, "detail": str(exc), "fix": "see the sandbox checks above"}
    pool = RunnerPool(backend, workers=1)
    try:
        info = pool.submit(WARM).result(timeout=120)
    finally:
        pool.close()
    if not isinstance(info, Ready):
        return {
            "name": "runner",
            "ok": False,
            "detail": f"the runner does not start in {backend.name}: {info.message}",
            "fix": f"{sys.executable} -m pip install pytest",
        }
    seccomp = "seccomp" in info.isolation
    filtered = (
        "seccomp filter installed"
        if seccomp
        else f"NO seccomp filter (Prism has a table for x86_64 and aarch64; this is {platform.machine()})"
    )
    return {
        "name": "runner",
        "ok": True,
        "seccomp": seccomp,
        "detail": f"inside {backend.name}: Python {info.python}, pytest {info.pytest}; {filtered}",
        "fix": "",
    }


def _check_cgroups() -> dict:
    mode = cgroup_mode()
    return {
        "name": "limits",
        "ok": True,
        "detail": f"per-sandbox cgroup ({mode}): process-count and memory limits hold for the whole tree"
        if mode
        else "no writable cgroup: memory is limited per process (rlimit); process count is bounded by the "
        "per-run timeout and reaping",
        "fix": "" if mode else "run as a user allowed to create cgroups (or under systemd-run --user --scope)",
    }


def _print_threat_model(console: Console, seccomp: bool) -> None:
    console.print(f"\n[bold]Trusted[/]: {escape(TRUSTED)}.")
    console.print(f"[bold]Untrusted[/]: {escape(UNTRUSTED)}.")
    for name, lines in guarantees(seccomp).items():
        console.print(f"[bold]--sandbox {name}[/] guarantees:")
        for line in lines:
            console.print(f"  - {escape(line)}")


def _print_reveal_levels(console: Console) -> None:
    console.print(
        "\n[bold]Reveal levels[/] (what an adaptive author, a suite that branches on the program's "
        "identity, can infer per run):"
    )
    for level, inferable in INFERABLE.items():
        console.print(f"  - [bold]{level}[/]: {escape(inferable)}")


def run_doctor(console: Console, as_json: bool = False) -> int:
    checks = [_check_bwrap(), _check_docker()]
    usable = checks[0]["ok"] or checks[1]["ok"]
    checks += [_check_runner("auto"), _check_cgroups()]
    # The seccomp lines say what the runner reported it installed; with no runner started, what this
    # architecture would get (the same tables decide both).
    seccomp = checks[2].get("seccomp", seccomp_filter(platform.machine(), True) is not None)
    if as_json:
        print(
            json.dumps(
                {
                    "ok": usable and checks[2]["ok"],
                    "checks": checks,
                    "threat_model": threat_model(seccomp),
                    "reveal_levels": INFERABLE,
                },
                indent=2,
            )
        )
    else:
        for c in checks:
            mark = "[green]ok[/]" if c["ok"] else "[red]problem[/]"
            console.print(f"{mark:>20}  [bold]{c['name']}[/]: {escape(c['detail'])}")
            if c["fix"]:
                console.print(f"{'':>10}fix: {escape(c['fix'])}")
        if not usable:
            console.print("[red]No sandbox backend is usable: install bubblewrap or start Docker.[/]")
        _print_threat_model(console, seccomp)
        _print_reveal_levels(console)
    return 0 if usable and checks[2]["ok"] else 1

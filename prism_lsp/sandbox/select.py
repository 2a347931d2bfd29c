"""Pick the sandbox backend for a name (`auto`, `bubblewrap`, `docker`, `none`)."""

from __future__ import annotations

from pathlib import Path

from prism_lsp.model.sandbox import SANDBOX_NAMES
from prism_lsp.sandbox.base import Backend, SandboxUnavailable

NAMES = SANDBOX_NAMES


def chosen_sandbox(requested: str | None, task_sandbox: str, manifest: Path) -> str:
    """The backend name for a run: the one whoever started Prism asked for, else the task's.

    A task folder is untrusted: it may ask for any sandbox but `none`, which would run its
    candidates and suites unisolated on this machine. Only the command line or settings choose that.
    """
    if requested:
        return requested
    if task_sandbox == "none":
        raise SandboxUnavailable(
            f"{manifest}: task.sandbox: a task folder cannot choose 'none' (candidates would run unisolated, "
            "with your files and network); if you trust this task's code, pass --sandbox none yourself"
        )
    return task_sandbox


def planned_backend(name: str, image: str | None, dockerfile: Path | None) -> str:
    """The backend `name` means before anything is tried: `auto` is Docker for a task that brings its
    own image or Dockerfile, else bubblewrap (`resolve_backend`'s first choice). Pure: no backend is
    made, no pool started, the same answer in every process (the result cache's keys use it)."""
    if name != "auto":
        return name
    return "docker" if image or dockerfile else "bubblewrap"


def _docker(cache_root: Path, image: str | None, dockerfile: Path | None) -> Backend:
    try:
        from prism_lsp.sandbox.docker_backend import DockerBackend
    except ImportError as exc:  # the docker SDK is a dependency, but be explicit if it is missing
        raise SandboxUnavailable(f"docker backend unavailable: {exc}") from None
    return DockerBackend(cache_root, image=image, dockerfile=dockerfile)


def _environment(image: str | None, dockerfile: Path | None) -> str:
    """How the report names the environment a task brings."""
    return f"Docker image {image!r}" if image else f"Dockerfile {dockerfile}"


def _bubblewrap(
    cache_root: Path, image: str | None, dockerfile: Path | None, why: str | None, python: str | None = None
) -> Backend:
    """Bubblewrap on the host's Python; warned about in the report when the task brought an image.

    A task's image or Dockerfile is part of the task: verdicts computed on the host
    Python may differ from those in the task's environment, so the report must say so
    whichever way bubblewrap was chosen (`--sandbox bubblewrap`, or `auto` without Docker).
    """
    from prism_lsp.sandbox.bubblewrap import BubblewrapBackend

    backend = BubblewrapBackend(cache_root, python)
    if image or dockerfile:
        because = f" because Docker is unavailable ({why})" if why else ""
        backend.warning = (
            f"the task brings its own environment ({_environment(image, dockerfile)}) but ran in "
            f"bubblewrap on the host's Python{because}; verdicts may differ from the task's environment"
        )
    return backend


def resolve_backend(
    name: str,
    cache_root: Path,
    *,
    image: str | None = None,
    dockerfile: Path | None = None,
    python: str | None = None,
    python_source: str = "",
) -> Backend:
    """The backend for `name`; raises `SandboxUnavailable` with how to get one.

    `python` is the task's own interpreter (untrusted): a backend that would show host
    folders for it checks them now (`InterpreterRefused`, its message led by `python_source`,
    e.g. the manifest's path), and `auto` never goes around such a refusal to another backend.

    `auto` prefers Docker when the task brings its own image or Dockerfile,
    otherwise bubblewrap, then Docker; it never falls back to `none`.

    A task's own image that is missing or does not build (`ImageUnavailable`) is an
    error under `auto` too, never a quiet run on the host: the environment is part of
    the task, and the author can fix it. Only when Docker itself is unusable here (no
    client, no engine) does `auto` run such a task in bubblewrap, with a warning in the
    report. Why not refuse then as well: imported Terminal-Bench/Harbor tasks keep their
    Dockerfile by default even when it only installs pytest, and a laptop without Docker
    should still be able to check suites for them, as long as the report says so.
    """
    from prism_lsp.sandbox.interpreter_rule import InterpreterRefused

    try:
        return _resolve(name, cache_root, image, dockerfile, python)
    except InterpreterRefused as exc:
        raise InterpreterRefused(f"{python_source or 'task.python'}: {exc}") from None


def _resolve(name: str, cache_root: Path, image: str | None, dockerfile: Path | None, python: str | None) -> Backend:
    from prism_lsp.sandbox.docker_image import ImageUnavailable
    from prism_lsp.sandbox.interpreter_rule import InterpreterRefused

    if name not in NAMES:
        raise SandboxUnavailable(f"unknown sandbox {name!r}; expected one of {', '.join(NAMES)}")
    if name == "none":
        from prism_lsp.sandbox.unsandboxed import UnsandboxedBackend

        return UnsandboxedBackend()
    if name == "bubblewrap":
        return _bubblewrap(cache_root, image, dockerfile, None, python)
    if name == "docker":
        return _docker(cache_root, image, dockerfile)
    reasons: list[str] = []
    brings_image = bool(image or dockerfile)
    order = ["docker", "bubblewrap"] if brings_image else ["bubblewrap", "docker"]
    for candidate in order:
        try:
            if candidate == "bubblewrap":
                return _bubblewrap(cache_root, image, dockerfile, reasons[-1] if reasons else None, python)
            return _docker(cache_root, image, dockerfile)
        except (ImageUnavailable, InterpreterRefused):
            raise  # the task's environment is broken or hostile: report it, never run the task elsewhere
        except SandboxUnavailable as exc:
            reasons.append(f"{candidate}: {exc}")
    raise SandboxUnavailable(
        "no usable sandbox: "
        + "; ".join(reasons)
        + ". Install bubblewrap (sudo apt-get install bubblewrap) or start a Docker engine;"
        " `--sandbox none` runs candidates unisolated (only for code you trust)."
    )

"""Pick the sandbox backend for a name (`auto`, `bubblewrap`, `docker`, `none`)."""

from __future__ import annotations

from pathlib import Path

from prism_lsp.sandbox.base import Backend, SandboxUnavailable

NAMES = ("auto", "bubblewrap", "docker", "none")


def _docker(cache_root: Path, image: str | None, dockerfile: Path | None) -> Backend:
    try:
        from prism_lsp.sandbox.docker_backend import DockerBackend
    except ImportError as exc:  # the docker SDK is a dependency, but be explicit if it is missing
        raise SandboxUnavailable(f"docker backend unavailable: {exc}") from None
    return DockerBackend(cache_root, image=image, dockerfile=dockerfile)


def resolve_backend(name: str, cache_root: Path, *, image: str | None = None,
                    dockerfile: Path | None = None) -> Backend:
    """The backend for `name`; raises `SandboxUnavailable` with how to get one.

    `auto` prefers Docker when the task brings its own image or Dockerfile,
    otherwise bubblewrap, then Docker; it never falls back to `none`.
    """
    from prism_lsp.sandbox.bubblewrap import BubblewrapBackend

    if name not in NAMES:
        raise SandboxUnavailable(f"unknown sandbox {name!r}; expected one of {', '.join(NAMES)}")
    if name == "none":
        from prism_lsp.sandbox.unsandboxed import UnsandboxedBackend

        return UnsandboxedBackend()
    if name == "bubblewrap":
        return BubblewrapBackend(cache_root)
    if name == "docker":
        return _docker(cache_root, image, dockerfile)
    reasons = []
    order = ["docker", "bubblewrap"] if (image or dockerfile) else ["bubblewrap", "docker"]
    for candidate in order:
        try:
            if candidate == "bubblewrap":
                return BubblewrapBackend(cache_root)
            return _docker(cache_root, image, dockerfile)
        except SandboxUnavailable as exc:
            reasons.append(f"{candidate}: {exc}")
    raise SandboxUnavailable(
        "no usable sandbox: " + "; ".join(reasons)
        + ". Install bubblewrap (sudo apt-get install bubblewrap) or start a Docker engine;"
        " `--sandbox none` runs candidates unisolated (only for code you trust)."
    )

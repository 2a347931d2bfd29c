"""Images for the Docker sandbox: the engine client, a named image, or a task's Dockerfile.

Every failure becomes a `SandboxUnavailable` that says which thing is wrong
(engine unreachable, image missing, build failed) and how to fix it. Nothing
here pulls from a registry: a missing image is reported, never fetched.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from prism_lsp.sandbox.base import SandboxUnavailable

# API calls that should answer at once (ping, inspect, create): a dead engine fails fast.
API_TIMEOUT_S = 20
# Image builds may legitimately take minutes.
BUILD_TIMEOUT_S = 1800
DEFAULT_IMAGE_ENV = "PRISM_DOCKER_IMAGE"
DEFAULT_IMAGE = "prism-python:local"
_IGNORED = {".git", "__pycache__", ".pytest_cache", ".mypy_cache"}


def connect(timeout: float | None = None):
    """A pinged docker SDK client; `SandboxUnavailable` naming the engine when unreachable.

    `timeout` (default `API_TIMEOUT_S`) bounds every API call, so a dead engine fails fast.
    """
    timeout = API_TIMEOUT_S if timeout is None else timeout
    try:
        import docker
        from docker.errors import DockerException
    except ImportError as exc:
        raise SandboxUnavailable(f"the docker Python SDK is not installed ({exc}); pip install 'docker>=7'") from None
    where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except DockerException as exc:
        raise SandboxUnavailable(
            f"Docker engine unreachable at {where}: {_short(exc)}. Start it (e.g. `sudo dockerd` or Docker Desktop) "
            "or choose another sandbox."
        ) from None
    except Exception as exc:  # requests' timeouts and socket errors are not DockerExceptions
        raise SandboxUnavailable(f"Docker engine unreachable at {where}: {_short(exc)}") from None
    return client


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def default_image() -> str:
    """The image used when a task names neither `image` nor `dockerfile`."""
    return os.environ.get(DEFAULT_IMAGE_ENV) or DEFAULT_IMAGE


def require_image(client, image: str) -> str:
    """`image` when present locally; otherwise `SandboxUnavailable` saying it is missing."""
    from docker.errors import DockerException, ImageNotFound

    try:
        client.images.get(image)
    except ImageNotFound:
        hint = ("build it with scripts/docker-image.sh" if image == DEFAULT_IMAGE
                else f"run `docker pull {image}` (Prism never pulls) or build it")
        raise SandboxUnavailable(f"Docker image {image!r} is not present on the engine: {hint}") from None
    except DockerException as exc:
        raise SandboxUnavailable(f"cannot inspect Docker image {image!r}: {_short(exc)}") from None
    return image


def context_digest(dockerfile: Path) -> str:
    """sha256 over the build context (the Dockerfile's folder): paths, modes and contents.

    Equal digests mean the same build inputs, so the built image can be reused.
    """
    context = dockerfile.parent
    h = hashlib.sha256(f"dockerfile={dockerfile.name}\n".encode())
    for dirpath, dirnames, filenames in os.walk(context):
        dirnames[:] = sorted(d for d in dirnames if d not in _IGNORED)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(context).as_posix()
            h.update(f"{rel}\0{os.lstat(path).st_mode & 0o111:o}\0".encode())
            if path.is_symlink():
                h.update(os.readlink(path).encode())
            else:
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def build_image(dockerfile: Path) -> str:
    """The tag of the image built from `dockerfile` (context: its folder), built once per digest.

    Tag `prism-task:<digest[:20]>`; a second call with unchanged inputs reuses it.
    Raises `SandboxUnavailable` naming the Dockerfile and the failing step's output.
    """
    from docker.errors import BuildError, DockerException, ImageNotFound

    dockerfile = Path(dockerfile).resolve()
    if not dockerfile.is_file():
        raise SandboxUnavailable(f"Dockerfile {dockerfile} does not exist")
    tag = f"prism-task:{context_digest(dockerfile)[:20]}"
    client = connect(BUILD_TIMEOUT_S)
    try:
        client.images.get(tag)
        return tag
    except ImageNotFound:
        pass
    except DockerException as exc:
        raise SandboxUnavailable(f"cannot inspect Docker image {tag}: {_short(exc)}") from None
    try:
        client.images.build(path=str(dockerfile.parent), dockerfile=dockerfile.name, tag=tag, rm=True,
                            forcerm=True, pull=False, labels={"prism.context": str(dockerfile.parent)})
    except BuildError as exc:
        tail = [str(chunk.get("stream", "") or chunk.get("error", "")).strip() for chunk in exc.build_log]
        tail = [line for line in tail if line][-8:]
        raise SandboxUnavailable(
            f"building the Docker image from {dockerfile} failed: {exc.msg}" + ("\n" + "\n".join(tail) if tail else "")
        ) from None
    except DockerException as exc:
        raise SandboxUnavailable(f"building the Docker image from {dockerfile} failed: {_short(exc)}") from None
    except Exception as exc:  # e.g. a read timeout on a build that never ends
        raise SandboxUnavailable(f"building the Docker image from {dockerfile} failed: {_short(exc)}") from None
    finally:
        client.close()
    return tag

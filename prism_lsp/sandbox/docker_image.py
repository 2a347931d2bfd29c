"""Images for the Docker sandbox: the engine client, a named image, or a task's Dockerfile.

Every failure becomes a `SandboxUnavailable` that says which thing is wrong
(engine unreachable, image missing, build failed) and how to fix it. A broken
image of the task's own (missing, or its Dockerfile does not build) is the
narrower `ImageUnavailable`: that is a defect of the task's environment, which
`auto` must report rather than run elsewhere. Nothing here pulls from a
registry: a missing image or `FROM` base is reported, never fetched, and a task's
Dockerfile builds with no network (`network_mode="none"`): its `RUN` steps, root in the
build container, have no route to the host or beyond.
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
# What the engine says when a build reaches for a registry it cannot resolve or may not read.
_REGISTRY_SIGNS = (
    "registry-1.docker.io",
    "no such host",
    "dial tcp",
    "pull access denied",
    "failed to resolve source metadata",
    "server misbehaving",
)


class ImageUnavailable(SandboxUnavailable):
    """The task's image is missing or its Dockerfile does not build.

    Distinct from the engine being unreachable: the task's environment itself is
    broken, so no backend may stand in for it (see `select.resolve_backend`).
    """


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
        hint = (
            "build it with scripts/docker-image.sh"
            if image == DEFAULT_IMAGE
            else f"run `docker pull {image}` (Prism never pulls) or build it"
        )
        raise ImageUnavailable(f"Docker image {image!r} is not present on the engine: {hint}") from None
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


def base_images(dockerfile: Path) -> list[str]:
    """The images the Dockerfile's `FROM` lines start from, in order.

    Leaves out `scratch`, earlier stages named with `AS`, and references built from
    `ARG`s (`FROM ${BASE}`): those cannot be known without evaluating the build.
    """
    text = Path(dockerfile).read_text(errors="replace")
    logical, current = [], ""
    for raw in text.splitlines():
        if raw.lstrip().startswith("#"):  # comments may sit inside a continued instruction too
            continue
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        logical.append(current + raw)
        current = ""
    stages: set[str] = set()
    bases: list[str] = []
    for line in logical:
        words = line.split()
        if not words or words[0].upper() != "FROM":
            continue
        args = [w for w in words[1:] if not w.startswith("--")]
        if not args:
            continue
        image = args[0]
        if image.lower() != "scratch" and image.lower() not in stages and "$" not in image:
            bases.append(image)
        if len(args) >= 3 and args[1].upper() == "AS":
            stages.add(args[2].lower())
    return bases


def _missing_base(base: str, dockerfile: Path) -> ImageUnavailable:
    return ImageUnavailable(
        f"base image {base!r} (FROM in {dockerfile}) is not available locally and Prism never pulls; "
        "build or load it first (docker load / docker import)"
    )


def _check_bases(client, dockerfile: Path) -> None:
    """Fail before building when a `FROM` base is not on the engine.

    `pull=False` does not stop the engine from reaching for a registry to resolve a
    missing base, and offline that surfaces as a DNS error that names neither the
    base nor the fix.
    """
    from docker.errors import DockerException, ImageNotFound

    for base in base_images(dockerfile):
        try:
            client.images.get(base)
        except ImageNotFound:
            raise _missing_base(base, dockerfile) from None
        except DockerException:
            pass  # an odd reference the API cannot inspect: let the build itself judge it


def build_image(dockerfile: Path) -> str:
    """The tag of the image built from `dockerfile` (context: its folder), built once per digest.

    Tag `prism-task:<digest[:20]>`; a second call with unchanged inputs reuses it. Built with no
    network, so a `RUN` step that downloads fails here, naming its output.
    Raises `ImageUnavailable` naming the Dockerfile and the failing step's output,
    or the `FROM` base that is not on the engine (never pulled).
    """
    dockerfile = Path(dockerfile).resolve()
    if not dockerfile.is_file():
        raise ImageUnavailable(f"Dockerfile {dockerfile} does not exist")
    tag = f"prism-task:{context_digest(dockerfile)[:20]}"
    client = connect(BUILD_TIMEOUT_S)
    try:
        return _build(client, dockerfile, tag)
    finally:
        client.close()


def _build(client, dockerfile: Path, tag: str) -> str:
    """`tag`, reused when present, else built from `dockerfile` after its bases are checked."""
    from docker.errors import BuildError, DockerException, ImageNotFound

    try:
        client.images.get(tag)
        return tag
    except ImageNotFound:
        pass
    except DockerException as exc:
        raise SandboxUnavailable(f"cannot inspect Docker image {tag}: {_short(exc)}") from None
    _check_bases(client, dockerfile)
    try:
        # The Dockerfile is the task's (untrusted) and its RUN steps run as root in the build
        # container: with no network they reach neither the host's bridge address nor beyond.
        client.images.build(
            path=str(dockerfile.parent),
            dockerfile=dockerfile.name,
            tag=tag,
            rm=True,
            forcerm=True,
            pull=False,
            network_mode="none",
            labels={"prism.context": str(dockerfile.parent)},
        )
    except BuildError as exc:
        tail = [str(chunk.get("stream", "") or chunk.get("error", "")).strip() for chunk in exc.build_log]
        tail = [line for line in tail if line][-8:]
        raise ImageUnavailable(
            f"building the Docker image from {dockerfile} failed: {exc.msg}"
            + _registry_hint(exc.msg, tail)
            + ("\n" + "\n".join(tail) if tail else "")
        ) from None
    except DockerException as exc:
        raise ImageUnavailable(
            f"building the Docker image from {dockerfile} failed: {_short(exc)}" + _registry_hint(str(exc), [])
        ) from None
    except Exception as exc:  # e.g. a read timeout on a build that never ends
        raise ImageUnavailable(f"building the Docker image from {dockerfile} failed: {_short(exc)}") from None
    return tag


def _registry_hint(message: str, log: list[str]) -> str:
    """A sentence for a build that tried a registry (a base or `COPY --from` image not here)."""
    text = " ".join([message, *log]).lower()
    if not any(sign in text for sign in _REGISTRY_SIGNS):
        return ""
    return (
        ". An image it needs is not available locally and Prism never pulls (this engine tried a registry);"
        " build or load it first (docker load / docker import)"
    )

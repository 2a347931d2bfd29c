"""Shared test helpers: build small task folders on disk, and one warm engine per session."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest

from prism_lsp.document.check import Check
from prism_lsp.engine.session import EngineSession
from prism_lsp.sandbox import SandboxUnavailable

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def write_task(
    root: Path,
    *,
    initial: dict[str, str],
    candidates: list[dict],
    task_id: str = "t",
    extra_task: str = "",
    suites: dict[str, str] | None = None,
) -> Path:
    """Write a native task folder. Each candidate: id, label, reference?, and `files` (overlay) or `patch` (text)."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in initial.items():
        p = root / "initial" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    lines = [f'[task]\nid = "{task_id}"\nstatement = "test task"\ninitial = "initial"\n{extra_task}\n']
    for c in candidates:
        entry = [f'[[candidate]]\nid = "{c["id"]}"\nlabel = "{c.get("label", "valid")}"']
        if c.get("reference"):
            entry.append("reference = true")
        if "patch" in c:
            path = root / "candidates" / f"{c['id']}.diff"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(c["patch"]))
            entry.append(f'patch = "candidates/{c["id"]}.diff"')
        else:
            for rel, text in c.get("files", {}).items():
                p = root / "candidates" / c["id"] / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(textwrap.dedent(text))
            (root / "candidates" / c["id"]).mkdir(parents=True, exist_ok=True)
            entry.append(f'overlay = "candidates/{c["id"]}"')
        if c.get("note"):
            entry.append(f'note = "{c["note"]}"')
        lines.append("\n".join(entry) + "\n")
    (root / "prism.toml").write_text("\n".join(lines))
    for rel, text in (suites or {}).items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("prism-cache")


@pytest.fixture(scope="session")
def engine(cache_dir) -> EngineSession:
    """One warm engine for the whole test session (as the language server keeps one)."""
    session = EngineSession(cache_dir)
    yield session
    session.close()


@pytest.fixture
def fixture_copy(tmp_path):
    """Copy a fixture task to tmp so a test may change it."""

    def copy(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(FIXTURES / name, dest)
        return dest

    return copy


def _docker_reason() -> str | None:
    from prism_lsp.sandbox.docker_image import connect

    try:
        connect(5).close()
    except SandboxUnavailable as exc:
        return str(exc)
    return None


def pytest_collection_modifyitems(config, items):
    """Everything under tests/docker/, and every test marked `docker`, needs a real engine.

    Without one they are skipped with the reason, except in CI: `.ci/run` starts dockerd
    itself, so there a missing engine fails the tests instead of hiding them.
    """
    reason = None
    for item in items:
        if "tests/docker/" in item.nodeid:
            item.add_marker(pytest.mark.docker)
        if item.get_closest_marker("docker") is None:
            continue
        if reason is None:
            reason = _docker_reason() or ""
        if reason and not os.environ.get("CI"):
            item.add_marker(pytest.mark.skip(reason=f"no Docker engine reachable: {reason}"))


@pytest.fixture(scope="session")
def docker_image() -> str:
    """The local Python image; fails (not skips) when the engine lacks it."""
    from prism_lsp.sandbox.docker_image import DEFAULT_IMAGE, connect, require_image

    client = connect()
    try:
        return require_image(client, DEFAULT_IMAGE)
    except SandboxUnavailable as exc:
        pytest.fail(f"{exc} (build it with scripts/docker-image.sh)")
    finally:
        client.close()


@pytest.fixture(scope="module")
def unit_check(tmp_path_factory) -> Check:
    """The pure server and document tests' buffer, checked on the recorded panel run (no sandbox needed)."""
    from tests.document.recorded import recorded_check

    return recorded_check(tmp_path_factory.mktemp("unit-cache"))

"""Harbor task folders: `task.toml`, `instruction.md`, `environment/`, `solution/`, `tests/test.sh`.

    task/
      task.toml               [verifier] timeout_sec (optional), [metadata] ...
      instruction.md          the statement (required)
      environment/Dockerfile  the environment; its folder (minus the Dockerfile) is the initial state
      solution/solve.sh       the benchmark's oracle (not used: the patch set holds the reference)
      tests/test.sh           the suite, judged as Harbor does: by the reward it writes to
                              /logs/verifier/reward.txt (or reward.json), else by its exit status

Other files under `tests/` (binary ones too) are copied into the initial state at
`tests/`. `--suite tests/test_outputs.py` makes a Python test file the suite instead:
Prism runs it with pytest. The panel comes from a patch set (see `patch_set`); it may
name its own initial state.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from prism_lsp.tasks.importers.common import TaskImportError, TaskSpec, require_file, slug
from prism_lsp.tasks.importers.patch_set import find_patch_set, read_patch_set
from prism_lsp.tasks.importers.suite_commands import harbor_command, suite_command
from prism_lsp.tasks.importers.tree_files import read_files, read_text

ENV_META = {"Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore"}


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskImportError(path, "", f"invalid TOML: {exc}") from None
    except RecursionError:
        raise TaskImportError(path, "", "invalid TOML: arrays or tables nested too deeply") from None


def read_harbor(
    src: Path,
    *,
    patch_set: Path | None = None,
    suite: str | None = None,
    test_command: str | None = None,
    use_docker: bool = True,
) -> TaskSpec:
    """Read a Harbor folder (and its patch set) into a `TaskSpec`; `TaskImportError` on any gap."""
    src = Path(src).resolve()
    if not src.is_dir():
        raise TaskImportError(src, "", "expected a Harbor task folder")
    meta_path = require_file(src / "task.toml", "task.toml", src)
    meta = _read_toml(meta_path)
    statement = read_text(require_file(src / "instruction.md", "instruction.md", src), src, "instruction").strip()
    if not statement:
        raise TaskImportError(src / "instruction.md", "", "the instruction is empty")
    verifier = meta.get("verifier", {})
    timeout = verifier.get("timeout_sec", 60) if isinstance(verifier, dict) else 60
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise TaskImportError(meta_path, "verifier.timeout_sec", f"expected a positive number, got {timeout!r}")
    env = src / "environment"
    dockerfile = env / "Dockerfile"
    if use_docker:
        require_file(dockerfile, "environment/Dockerfile", src)
    chosen = suite or "tests/test.sh"
    require_file(src / chosen, "test script" if suite is None else "suite file", src)
    pset = read_patch_set(find_patch_set(src, patch_set))
    if test_command or chosen.endswith(".py"):
        command = suite_command(chosen, test_command)
    else:
        command = harbor_command(chosen)
    spec = TaskSpec(
        id=slug(src.name),
        source=pset.manifest,
        statement=statement,
        timeout_s=float(timeout),
        candidates=pset.candidates,
        dockerfile=dockerfile if use_docker else None,
        test_command=command,
    )
    if pset.initial is not None:
        spec.initial_dir = pset.initial
    elif env.is_dir():
        spec.initial_dir, spec.initial_skip = env, set(ENV_META)
    spec.suites = {chosen: read_text(src / chosen, src, "suite file (a suite is run as text)")}
    helpers = read_files(src / "tests", src) if (src / "tests").is_dir() else {}
    spec.initial_files = {rel: data for rel, data in helpers.items() if rel != chosen}
    return spec

"""Terminal-Bench task folders: `task.yaml`, `Dockerfile`, `run-tests.sh`, `tests/`, plus a patch set.

    task/
      task.yaml            instruction (required), max_test_timeout_sec, parser_name
      Dockerfile           (or docker-compose.yaml) the environment; carried as the task's dockerfile
      solution.sh          the benchmark's oracle (not used: the patch set holds the reference)
      run-tests.sh         the benchmark's test entry point
      tests/               test_outputs.py and its helpers
      ...                  everything else is the initial state (unless the patch set names one)

With `parser_name: pytest` (the default) the suite is the pytest file in `tests/`
and Prism runs it itself, per assertion. With another Terminal-Bench parser (or with
`--test-command`), the suite is `run-tests.sh`, run with `TEST_DIR` pointing at the
tests, and judged by its exit status. Test helpers (binary ones too) are copied into
the initial state at `tests/`.

Prism runs one container built from a `Dockerfile`; a task that only brings a
`docker-compose.yaml` (several services) is refused unless `--image` or
`--no-docker` says where to run it instead.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from prism_lsp.tasks.importers.common import TaskImportError, TaskSpec, require_file, slug
from prism_lsp.tasks.importers.patch_set import find_patch_set, read_patch_set
from prism_lsp.tasks.importers.suite_commands import suite_command
from prism_lsp.tasks.importers.tree_files import read_file, read_files, read_text

META = {
    "task.yaml",
    "Dockerfile",
    "docker-compose.yaml",
    "docker-compose.yml",
    "solution.sh",
    "solution",
    "run-tests.sh",
    "tests",
    "patch-set",
}
# Terminal-Bench's parsers (`ParserName`); all but pytest read run-tests.sh's output, so Prism judges
# those by run-tests.sh's exit status.
PARSERS = ("pytest", "swebench", "sweperf", "swelancer", "mlebench", "formulacode")
COMPOSE = ("docker-compose.yaml", "docker-compose.yml")


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise TaskImportError(path, "", f"invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise TaskImportError(path, "", "expected a mapping at the top level")
    return data


def _pick_pytest_file(tests: Path, suite: str | None, source: Path) -> Path:
    if suite:
        return require_file(tests.parent / suite, "suite file", source)
    files = sorted(tests.glob("test_*.py"))
    if not files:
        raise TaskImportError(
            tests, "tests", "no test_*.py file for parser_name pytest; pass --suite or --test-command"
        )
    preferred = [f for f in files if f.name == "test_outputs.py"]
    return (preferred or files)[0]


def read_terminal_bench(
    src: Path,
    *,
    patch_set: Path | None = None,
    suite: str | None = None,
    test_command: str | None = None,
    use_docker: bool = True,
) -> TaskSpec:
    """Read a Terminal-Bench folder (and its patch set) into a `TaskSpec`; `TaskImportError` on any gap."""
    src = Path(src).resolve()
    if not src.is_dir():
        raise TaskImportError(src, "", "expected a Terminal-Bench task folder")
    meta_path = require_file(src / "task.yaml", "task.yaml", src)
    meta = _read_yaml(meta_path)
    instruction = meta.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskImportError(meta_path, "instruction", "missing required key (the task statement)")
    timeout = meta.get("max_test_timeout_sec", 60)
    # bool is an int in Python: `true` must not become a 1-second limit.
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise TaskImportError(meta_path, "max_test_timeout_sec", f"expected a positive number, got {timeout!r}")
    parser = meta.get("parser_name", "pytest")
    if parser not in PARSERS:  # a typo must not silently switch the task to run-tests.sh judging
        raise TaskImportError(meta_path, "parser_name", f"expected one of {', '.join(PARSERS)}, got {parser!r}")
    require_file(src / "run-tests.sh", "run-tests.sh", src)
    tests = src / "tests"
    if not tests.is_dir():
        raise TaskImportError(src, "tests", f"missing the tests/ folder (expected {tests})")
    dockerfile = src / "Dockerfile"
    if use_docker and not dockerfile.is_file():
        compose = [name for name in COMPOSE if (src / name).is_file()]
        if compose:
            raise TaskImportError(
                src / compose[0],
                "",
                "docker-compose tasks are not supported: Prism runs one "
                "container built from a Dockerfile; pass --image IMAGE to "
                "run in an image, or --no-docker",
            )
        raise TaskImportError(src, "Dockerfile", f"missing the environment (expected {dockerfile})")
    pset = read_patch_set(find_patch_set(src, patch_set))
    spec = TaskSpec(
        id=slug(src.name),
        source=pset.manifest,
        statement=instruction.strip(),
        timeout_s=float(timeout),
        candidates=pset.candidates,
        dockerfile=dockerfile if use_docker and dockerfile.is_file() else None,
    )
    spec.initial_dir, spec.initial_skip = (
        (pset.initial, set()) if pset.initial else (src, META | {pset.manifest.parent.name})
    )
    helpers = read_files(tests, src)
    if test_command is None and parser == "pytest":
        chosen = _pick_pytest_file(tests, suite, src).relative_to(src).as_posix()
        spec.test_command = suite_command(chosen, None)  # None unless pytest would not collect the file
    else:
        chosen = suite or "run-tests.sh"
        require_file(src / chosen, "suite file", src)
        helpers["run-tests.sh"] = read_file(src / "run-tests.sh", src)
        if test_command or chosen.endswith(".py"):
            spec.test_command = suite_command(chosen, test_command)
        else:
            spec.test_command = f'TEST_DIR="$PWD/tests" bash {shlex.quote(chosen)}'
    spec.suites = {chosen: read_text(src / chosen, src, "suite file (a suite is run as text)")}
    spec.initial_files = {rel: data for rel, data in helpers.items() if rel != chosen}
    return spec

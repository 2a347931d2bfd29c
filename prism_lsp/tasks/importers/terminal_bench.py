"""Terminal-Bench task folders: `task.yaml`, `Dockerfile`, `run-tests.sh`, `tests/`, plus a patch set.

    task/
      task.yaml            instruction (required), max_test_timeout_sec, parser_name
      Dockerfile           (or docker-compose.yaml) the environment; carried as the task's dockerfile
      solution.sh          the benchmark's oracle (not used: the patch set holds the reference)
      run-tests.sh         the benchmark's test entry point
      tests/               test_outputs.py and its helpers
      ...                  everything else is the initial state (unless the patch set names one)

With `parser_name: pytest` (the default) the suite is the pytest file in `tests/`
and Prism runs it itself, per assertion. Otherwise (or with `--test-command`), the
suite is `run-tests.sh`, run with `TEST_DIR` pointing at the tests, and judged by its
exit status. Test helpers are copied into the initial state at `tests/`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from prism_lsp.tasks.importers.common import TaskImportError, TaskSpec, require_file, slug
from prism_lsp.tasks.importers.patch_set import find_patch_set, read_patch_set

META = {"task.yaml", "Dockerfile", "docker-compose.yaml", "docker-compose.yml", "solution.sh", "solution",
        "run-tests.sh", "tests", "patch-set"}


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
        raise TaskImportError(tests, "tests", "no test_*.py file for parser_name pytest; pass --suite or --test-command")
    preferred = [f for f in files if f.name == "test_outputs.py"]
    return (preferred or files)[0]


def read_terminal_bench(src: Path, *, patch_set: Path | None = None, suite: str | None = None,
                        test_command: str | None = None, use_docker: bool = True) -> TaskSpec:
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
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise TaskImportError(meta_path, "max_test_timeout_sec", f"expected a positive number, got {timeout!r}")
    parser = meta.get("parser_name", "pytest")
    require_file(src / "run-tests.sh", "run-tests.sh", src)
    tests = src / "tests"
    if not tests.is_dir():
        raise TaskImportError(src, "tests", f"missing the tests/ folder (expected {tests})")
    dockerfile = src / "Dockerfile"
    if use_docker and not dockerfile.is_file() and not (src / "docker-compose.yaml").is_file():
        raise TaskImportError(src, "Dockerfile", f"missing the environment (expected {dockerfile} or docker-compose.yaml)")
    pset = read_patch_set(find_patch_set(src, patch_set))
    spec = TaskSpec(id=slug(src.name), source=pset.manifest, statement=instruction.strip(), timeout_s=float(timeout),
                    candidates=pset.candidates, dockerfile=dockerfile if use_docker and dockerfile.is_file() else None)
    spec.initial_dir, spec.initial_skip = (pset.initial, set()) if pset.initial else (src, META | {pset.manifest.parent.name})
    helpers = {f.relative_to(src).as_posix(): f for f in sorted(tests.rglob("*")) if f.is_file()}
    if test_command is None and parser == "pytest":
        chosen = _pick_pytest_file(tests, suite, src).relative_to(src).as_posix()
    else:
        chosen = suite or "run-tests.sh"
        require_file(src / chosen, "suite file", src)
        helpers["run-tests.sh"] = src / "run-tests.sh"
        spec.test_command = test_command or f'TEST_DIR="$PWD/tests" bash {chosen}'
    spec.suites = {chosen: (src / chosen).read_text(encoding="utf-8")}
    spec.initial_files = {rel: f.read_text(encoding="utf-8") for rel, f in helpers.items()
                          if rel != chosen and "__pycache__" not in rel}
    return spec

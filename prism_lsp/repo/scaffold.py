"""`prism init --scaffold DIR --reference FILE`: the folder layout of a function-level task.

For a teacher who has a reference solution and wants a panel around it:
  DIR/prism.toml                     the manifest (the reference, as an overlay)
  DIR/initial/<module>.py            the stub: every public function's signature and docstring,
                                     its body `raise NotImplementedError` (the initial state)
  DIR/candidates/reference/<module>.py   the reference, as given
  DIR/verifier/test_verifier.py      an empty verifier, the trusted judge of validity, to write
  DIR/suites/test_<module>.py        an empty suite, to write
DIR must not exist or be empty; nothing is written when the reference cannot be read or parsed.
Written by the importers' `write_native`: staged, checked, renamed into place.
"""

from __future__ import annotations

import ast
from pathlib import Path

from prism_lsp.model.task import Task
from prism_lsp.repo.errors import InitError
from prism_lsp.tasks.importers.common import CandidateSpec, TaskSpec, slug, write_native


def stub_source(source: str, name: str) -> str:
    """`source` with the body of every function (methods too) replaced by its docstring and
    `raise NotImplementedError`; imports, classes, constants and signatures kept."""
    try:
        tree = ast.parse(source, filename=name)
    except SyntaxError as exc:
        raise InitError(f"{name}: not valid Python (line {exc.lineno}: {exc.msg}); the reference must parse") from None
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        raise InitError(f"{name} defines no function: a function-level task needs one to stub")
    lines = source.splitlines(keepends=True)
    # Replace bodies from the bottom up, so earlier line numbers stay valid; nested functions
    # vanish with their enclosing body.
    outer = [f for f in functions if not any(f is not g and _inside(f, g) for g in functions)]
    for fn in sorted(outer, key=lambda f: f.lineno, reverse=True):
        first, last = fn.body[0], fn.body[-1]
        indent = " " * first.col_offset
        doc = ast.get_docstring(fn, clean=False)
        keep_doc = doc is not None
        start = (fn.body[1] if keep_doc and len(fn.body) > 1 else first).lineno - 1
        if keep_doc and len(fn.body) == 1:
            start = last.end_lineno or start  # only a docstring: add the raise after it
        body = [f"{indent}raise NotImplementedError\n"]
        if fn.body[0].lineno == fn.lineno:  # `def f(): return 1` on one line
            header = lines[fn.lineno - 1][: first.col_offset].rstrip() + "\n"
            lines[fn.lineno - 1 : last.end_lineno] = [header, " " * (fn.col_offset + 4) + "raise NotImplementedError\n"]
            continue
        lines[start : last.end_lineno] = body
    return "".join(lines)


def _inside(inner: ast.FunctionDef | ast.AsyncFunctionDef, outer: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return outer.lineno < inner.lineno and (inner.end_lineno or 0) <= (outer.end_lineno or 0)


def _suite_text(module: str, functions: list[str]) -> str:
    names = ", ".join(functions)
    return f"from {module} import {names}\n\n\n# Write the tests here; `prism run` judges them against the panel.\n"


def scaffold_task(dest: Path, reference: Path, *, statement: str = "") -> Task:
    """Write the task folder at `dest` (through the importers' checked, atomic writer); load it."""
    try:
        source = Path(reference).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InitError(f"cannot read the reference {reference}: {getattr(exc, 'strerror', None) or exc}") from None
    file_name = Path(reference).name
    if not file_name.endswith(".py"):
        raise InitError(f"the reference {reference} is not a Python file (.py)")
    module = file_name[:-3]
    stub = stub_source(source, str(reference))
    public = [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("_")
    ]
    suite = _suite_text(module, public)
    spec = TaskSpec(
        id=slug(module),
        source=Path(reference).resolve(),
        statement=statement,
        initial_files={file_name: stub},
        candidates=[
            CandidateSpec(
                id="reference", label="valid", reference=True, files={file_name: source}, note="the reference solution"
            )
        ],
        suites={
            f"suites/test_{module}.py": suite,
            "verifier/test_verifier.py": suite.replace(
                "Write the tests here", "The trusted judge of validity: write it here"
            ),
        },
    )
    return write_native(spec, dest)

"""Real bug-fix commits of public repositories: Prism's verdicts against plain pytest's, and panel builds.

    python bench/real_repos.py [--case ID ...] [--budget-s 60]
    python bench/real_repos.py pack MIRROR ID        # (re)make a case's bundle from a fetched clone

The cases are `bench/real_repos/cases.toml`, each a two-commit git bundle beside it (base, fix). For
every case, as its developer would: clone the bundle, make a `.venv` (pytest, the test dependencies,
an editable install of the repository), then `prism init --base base --fix main` with no exclusions
by hand, `prism run` of the fix's test module and `prism panel build`. Printed, one row a case: the
initial and reference verdicts beside plain pytest's (one `python -m pytest` process on the base's
library with the fix's tests, and on the fix), the mutants the panel build kept (each proven by a
witness), its time and the peak RSS of the `prism panel build` process tree on the host.

The repositories' code (their build, their tests under plain pytest) runs only inside bubblewrap:
the host read-only, the case's folder the one writable place, no network but for `pip install`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "real_repos"
PRISM = Path(sys.executable).parent / "prism"
MAX_CASES = 50
STEP_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Case:
    id: str
    repo: str
    license: str
    upstream_base: str
    upstream_fix: str
    test: str
    deps: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()  # upstream folders left out of both trees (documentation, examples)

    @property
    def bundle(self) -> Path:
        return CASES / f"{self.id}.bundle"


def load_cases(path: Path = CASES / "cases.toml") -> list[Case]:
    rows = tomllib.loads(path.read_text())["case"][:MAX_CASES]
    return [Case(**{**r, "deps": tuple(r.get("deps", ())), "drop": tuple(r.get("drop", ()))}) for r in rows]


def _git(*args: str, cwd: Path | None = None, env: dict | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=600
    ).stdout.strip()


def pack(mirror: Path, case: Case) -> Path:
    """Write `case.bundle`: a root commit with the upstream base's tree, then the fix's tree as its
    child (the fix's author, dates and message); branch `main` is the fix, branch `base` the base."""
    with tempfile.TemporaryDirectory(prefix="prism-pack-") as tmp:
        work = Path(tmp) / "r.git"
        _git("init", "-q", "--bare", str(work))
        (work / "objects" / "info" / "alternates").write_text(str((mirror / "objects").resolve()) + "\n")
        trees, made = [], []
        for rev in (case.upstream_base, case.upstream_fix):
            fields = _git("--git-dir", str(mirror), "log", "-1", "--format=%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI", rev)
            an, ae, ad, cn, ce, cd = fields.split("\0")
            message = _git("--git-dir", str(mirror), "log", "-1", "--format=%B", rev)
            tree = _git("--git-dir", str(mirror), "rev-parse", f"{rev}^{{tree}}")
            if case.drop:
                index = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
                _git("--git-dir", str(work), "read-tree", tree, env=index)
                _git("--git-dir", str(work), "rm", "-r", "-q", "--cached", *case.drop, env=index)
                tree = _git("--git-dir", str(work), "write-tree", env=index)
            env = {
                **os.environ,
                "GIT_AUTHOR_NAME": an,
                "GIT_AUTHOR_EMAIL": ae,
                "GIT_AUTHOR_DATE": ad,
                "GIT_COMMITTER_NAME": cn,
                "GIT_COMMITTER_EMAIL": ce,
                "GIT_COMMITTER_DATE": cd,
            }
            parent = ["-p", made[-1]] if made else []
            made.append(_git("--git-dir", str(work), "commit-tree", tree, *parent, "-m", message, env=env))
            trees.append(tree)
        _git("--git-dir", str(work), "update-ref", "refs/heads/main", made[1])
        # A branch, not a tag: a version from `git describe` (setuptools-scm, versioneer) stays valid.
        _git("--git-dir", str(work), "update-ref", "refs/heads/base", made[0])
        _git("--git-dir", str(work), "symbolic-ref", "HEAD", "refs/heads/main")
        # The bundle must hold every object itself (no alternates once cloned).
        _git("--git-dir", str(work), "repack", "-a", "-d", "-q")
        (work / "objects" / "info" / "alternates").unlink()
        _git("--git-dir", str(work), "bundle", "create", str(case.bundle), "HEAD", "main", "base")
    return case.bundle


# ---- running a case ---------------------------------------------------------------------------


def _bwrap(folder: Path, *, net: bool) -> list[str]:
    """The repository's own code runs here: the host read-only, `folder` writable, private /tmp."""
    return [
        "bwrap",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--bind", str(folder), str(folder),
        "--unshare-all",
        *(["--share-net"] if net else []),
        "--die-with-parent",
        "--chdir", str(folder),
    ]  # fmt: skip


def _sandboxed(folder: Path, argv: list[str], *, net: bool = False, timeout: float = STEP_TIMEOUT_S):
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(folder),
        "PIP_NO_CACHE_DIR": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **{k: v for k, v in os.environ.items() if k.startswith("PIP_") or k in ("LANG", "SSL_CERT_FILE")},
    }
    return subprocess.run(
        _bwrap(folder, net=net) + argv, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _is_test_file(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (
        bool({"tests", "test", "testing"} & set(parts[:-1]))
        or name == "conftest.py"
        or (name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")))
    )


@dataclass
class Row:
    case: str
    plain: tuple[str, str] = ("?", "?")  # plain pytest on the initial program, on the reference
    prism: tuple[str, str] = ("?", "?")
    kept: int = 0
    build_s: float = 0.0
    build_rss_mb: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def verdicts_match(self) -> bool:
        return self.plain == self.prism and "?" not in self.plain


def setup(case: Case, where: Path) -> Path:
    """Clone the bundle and make its `.venv` as its developer would: pytest, the test dependencies,
    and an editable install of the repository."""
    repo = where / case.id
    _git("clone", "-q", str(case.bundle), str(repo))
    _git("-C", str(repo), "branch", "-q", "base", "origin/base")
    _git("-C", str(repo), "config", "user.email", "bench@example.invalid")
    _git("-C", str(repo), "config", "user.name", "bench")
    venv = [
        sys.executable if sys.base_prefix == sys.prefix else f"{sys.base_prefix}/bin/python3",
        "-m",
        "venv",
        ".venv",
    ]
    made = _sandboxed(repo, venv)
    if made.returncode:
        raise RuntimeError(f"{case.id}: venv: {made.stderr[-2000:]}")
    pip = _sandboxed(
        repo, [".venv/bin/python", "-m", "pip", "install", "-q", "pytest", *case.deps, "-e", "."], net=True
    )
    if pip.returncode:
        raise RuntimeError(f"{case.id}: pip install: {pip.stderr[-2000:]}")
    return repo


def _plain(repo: Path, test: str) -> str:
    done = _sandboxed(repo, [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", test])
    return {0: "pass", 1: "fail"}.get(done.returncode, f"error({done.returncode})")


def plain_verdicts(case: Case, repo: Path) -> tuple[str, str]:
    """Plain pytest on the base's library with the fix's test files, then on the fix."""
    library = [
        r for r in _git("-C", str(repo), "diff", "--name-only", "base", "main").splitlines() if not _is_test_file(r)
    ]
    if library:
        _git("-C", str(repo), "checkout", "base", "--", *library)
    try:
        initial = _plain(repo, case.test)
    finally:
        _git("-C", str(repo), "checkout", "main", "--", ".")
    return initial, _plain(repo, case.test)


def _timed(argv: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run on the host; (result, seconds, peak RSS in MB of the process and what it waited for)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, text=True)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            proc.returncode = proc.returncode if proc.returncode is not None else 0
        elapsed = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        done = subprocess.CompletedProcess(argv, code, out.read(), err.read())
    return done, elapsed, usage.ru_maxrss / 1024


def prism_verdicts(case: Case, repo: Path) -> tuple[str, str]:
    init = subprocess.run(
        [str(PRISM), "init", "--base", "base", "--fix", "main"], cwd=repo, capture_output=True, text=True
    )
    if init.returncode:
        raise RuntimeError(f"{case.id}: prism init: {init.stdout[-1000:]}{init.stderr[-1000:]}")
    run = subprocess.run(
        [str(PRISM), "run", ".", case.test, "--json", "--workers", "1"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    report = json.loads(run.stdout)
    return _outcome(report, "initial"), _outcome(report, "reference")


def _outcome(report: dict, program: str) -> str:
    if program == "initial":
        return str((report.get("baseline") or {}).get("outcome", "?"))
    for c in report.get("candidates", []):
        if c.get("reference") or c.get("id") == "reference":
            return str(c.get("outcome"))
    return "?"


def build(repo: Path, budget_s: float) -> tuple[int, float, float, str]:
    done, seconds, rss = _timed(
        [
            str(PRISM),
            "panel",
            "build",
            ".",
            "--budget-s",
            f"{budget_s:g}",
            "--json",
            "--out",
            str(repo.parent / f"{repo.name}-panel"),
        ],
        cwd=repo,
    )
    try:
        kept = len(json.loads(done.stdout).get("kept", []))
    except json.JSONDecodeError:
        kept = 0
    return kept, seconds, rss, done.stderr[-3000:]


def run_case(case: Case, where: Path, budget_s: float) -> Row:
    row = Row(case.id)
    repo = setup(case, where)
    row.plain = plain_verdicts(case, repo)
    row.prism = prism_verdicts(case, repo)
    row.kept, row.build_s, row.build_rss_mb, log = build(repo, budget_s)
    if row.kept < 3:
        row.notes.append(log.strip().splitlines()[-1] if log.strip() else "no output")
    return row


def table(rows: list[Row]) -> str:
    lines = [
        "| case | plain pytest initial / reference | Prism initial / reference | verdicts match | panel kept | build time | build peak RSS |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.case} | {' / '.join(r.plain)} | {' / '.join(r.prism)} | {'yes' if r.verdicts_match else 'NO'} "
            f"| {r.kept} | {r.build_s:.1f} s | {r.build_rss_mb:.0f} MB |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("pack")
    p.add_argument("mirror", type=Path)
    p.add_argument("ids", nargs="+")
    parser.add_argument("--case", action="append", default=[])
    parser.add_argument("--budget-s", type=float, default=60.0)
    parser.add_argument("--keep", type=Path, help="set the cases up here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    cases = load_cases()
    if args.command == "pack":
        for case in cases:
            if case.id in args.ids:
                print(case.bundle, case.bundle.stat().st_size if pack(args.mirror, case) else 0)
        return 0
    chosen = [c for c in cases if not args.case or c.id in args.case]
    where = args.keep or Path(tempfile.mkdtemp(prefix="prism-real-"))
    rows = []
    try:
        for case in chosen:
            try:
                row = run_case(case, where, args.budget_s)
            except (RuntimeError, subprocess.SubprocessError, OSError, json.JSONDecodeError) as e:
                row = Row(case.id, notes=[f"{type(e).__name__}: {str(e)[-500:]}"])
            rows.append(row)
            print(table([row]).splitlines()[-1], *row.notes, flush=True, file=sys.stderr)
    finally:
        if args.keep is None:
            shutil.rmtree(where, ignore_errors=True)
    print(table(rows))
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0 if all(r.verdicts_match and r.kept >= 3 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

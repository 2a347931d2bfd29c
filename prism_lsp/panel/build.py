"""`prism panel build`: invalid candidates from mutants of the reference.

A mutant is kept only if it builds and imports, is rejected by the verifier (when the task has
one) without only crashing, does not crash on every one of the suites' own inputs, has a witness
on which every valid candidate agrees (so a change in the open dimension, or an equivalent
mutant, is dropped), and behaves unlike every candidate already kept or in the panel. Of those,
`max_invalid` are chosen for diversity: distinct verifier failure sets and distinct changed
lines first, in an order drawn from `seed`, so the same seed gives the same panel, byte for byte.
"""

from __future__ import annotations

import ast
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from prism_lsp.engine.session import EngineSession
from prism_lsp.model.task import Task
from prism_lsp.panel.diffs import tree_diff
from prism_lsp.panel.label import label_diffs, staged_candidates
from prism_lsp.panel.mutate import Mutant, mutant_at, sites_of
from prism_lsp.panel.sites import MIN_CHANGED_MUTANTS, FileSite, Sites, find_sites
from prism_lsp.panel.verifier import reference_seconds
from prism_lsp.panel.witnessing import probe_candidates
from prism_lsp.panel.write import NewCandidate, candidates_folder, replace_mutants
from prism_lsp.witness import Witness
from prism_lsp.witness.panel_search import Reach, probe_roots
from prism_lsp.witness.suite_names import dotted_name

MIN_MUTANT_TIMEOUT_S = 2.0
BATCH = 40  # mutants labelled and probed together
DEFAULT_BUDGET_S = 60.0
# Seconds of the budget kept for what follows the last probe: judging the batch, writing the
# panel, closing the runners and the process's exit (0.8 s measured on toolz's fix, mostly the
# interpreter's exit, 2026-12-02; 2.1 s at load 5 on more-itertools', so a little more is kept).
FINISH_S = 2.5


@dataclass(frozen=True)
class BuildOptions:
    max_invalid: int = 5
    seed: int = 0
    max_tried: int = 120  # mutants run at most (drawn by `seed` when there are more)
    sandbox: str | None = None
    timeout_s: float | None = None
    # Where to mutate: "changed" = strictly the lines the reference changed (where the bug was), "all" =
    # every line of the files it changed, "auto" = for a task made by `prism init` (a real fix in a real
    # file, most of which is not about the bug) the changed lines, widened to their enclosing functions
    # when they give fewer than `sites.MIN_CHANGED_MUTANTS` mutants; else "all" (a function-level task).
    mutate: str = "auto"
    # Seconds the build may take: checked between batches and, inside one, between the entry points
    # the witness search probes, so a large change gives the mutants kept so far, with a note,
    # instead of hours of silence.
    budget_s: float = DEFAULT_BUDGET_S
    # When the budget started (`time.monotonic()`): the command's start, so its imports, the task's
    # load and copy count too and the whole command fits the budget; None: when the build starts.
    started: float | None = None
    progress: Callable[[str], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Kept:
    id: str
    mutant: Mutant
    diff: str
    witness: Witness
    failed: tuple[str, ...]  # verifier tests it fails (empty without a verifier)


@dataclass
class BuildResult:
    labelled_by: str  # "verifier" or "witnesses"
    generated: int = 0  # mutants made (distinct, compiling, not the initial program)
    sites: int = 0  # mutation sites on the lines mutated
    tried: int = 0
    dropped: Counter = field(default_factory=Counter)  # reason -> how many
    kept: list[Kept] = field(default_factory=list)
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def _ids(mutants: list[Mutant], files: set[str] | None = None) -> list[str]:
    """Readable, unique, stable ids: `mut-<operator>-l<line>`, numbered when repeated; the file's stem
    joins them when mutants come from several `files` (default: the mutants' own)."""
    files = {m.file for m in mutants} if files is None else files
    seen: Counter = Counter()
    out = []
    for m in mutants:
        stem = f"-{Path(m.file).stem.lower().replace('_', '-')}" if len(files) > 1 else ""
        base = f"mut{stem}-{m.operator}-l{m.line}"
        seen[base] += 1
        out.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return out


def mutation_scope(task: Task, mutate: str) -> str:
    """What `mutate` ("auto", "changed", "all") means for `task`: "changed" (the changed lines only),
    "widen" (the changed lines, widened when they give too few mutants) or "all"."""
    if mutate == "auto":
        from prism_lsp.repo.writer import made_by_init

        return "widen" if made_by_init(task.manifest) else "all"
    return mutate


@dataclass
class _Source:
    """The reference's changed Python files, the initial program's texts of them, and their sites."""

    texts: dict[str, str]
    initial: dict[str, str | None]
    sites: list[FileSite]  # (file, statement, site): the changed lines' (or all) in traversal order, then the widened
    widened: int = 0  # how many of `sites` (the last ones) are widened to the changed lines' functions
    found: Sites | None = None  # the changed lines' sites and their widening ("changed" and "widen" scopes)


def _sites(session: EngineSession, task: Task, scope: str) -> _Source:
    tree = session.cache.candidate(task, task.reference)
    texts = {
        rel: (tree.path / rel).read_text(encoding="utf-8")
        for rel in sorted(tree.changed)
        if (tree.path / rel).is_file()
    }
    initial = {
        rel: (task.initial / rel).read_text(encoding="utf-8") if (task.initial / rel).is_file() else None
        for rel in texts
    }
    python = {rel: text for rel, text in texts.items() if rel.endswith(".py")}
    if scope == "all":
        return _Source(texts, initial, [(rel, chunk, site) for rel in python for chunk, site in sites_of(python[rel])])
    found = find_sites(python, tree.changed, initial, widen=scope == "widen")
    return _Source(texts, initial, found.all, len(found.widened), found)


def _scope_line(source: _Source, scope: str, budget_from: float) -> str:
    """The progress line saying where the build mutates, and why it widened."""
    files = ", ".join(sorted(source.texts)) or "no file"
    where = "the changed files" if scope == "all" else "the lines the fix changed"
    line = f"{len(source.sites) - source.widened} mutation sites on {where} of {files}"
    found = source.found
    if scope == "widen" and found is not None and found.changed_mutants < MIN_CHANGED_MUTANTS:
        n = found.changed_mutants
        line += f"; {n} mutant{'' if n == 1 else 's'} there (fewer than {MIN_CHANGED_MUTANTS}): "
        if found.widened:
            names = [f"`{b.name}`" for bodies in found.bodies.values() for b in bodies]
            functions = f"function{'' if len(names) == 1 else 's'} {', '.join(names)}"
            line += f"widened to the enclosing {functions}: {source.widened} more sites"
        else:
            line += "not widened (no other site in a function holding a changed line)"
    return f"{line} ({time.monotonic() - budget_from:.1f} s)"


def _reach(task: Task, source: _Source) -> Reach:
    """The changed files' modules, the top-level functions and classes holding a mutation site, and
    the methods (`Class.method`) holding one: the entry points the witness search tries first, and
    the protocol methods its probes observe first."""
    roots = sorted({r.strip("/") for r in probe_roots(task) if r.strip("/") not in ("", ".")}, key=len, reverse=True)
    modules: set[str] = set()
    names: set[str] = set()
    methods: dict[str, int] = {}
    firsts: dict[str, set[int]] = {}  # file -> first lines of the top-level statements with sites
    lines: dict[str, set[int]] = {}  # file -> lines of the sites
    words: set[str] = set()  # the names the changed lines' sites are written with
    for n, (rel, chunk, site) in enumerate(source.sites):
        firsts.setdefault(rel, set()).add(chunk.first)
        lines.setdefault(rel, set()).add(chunk.first + site.line - 1)
        if n < len(source.sites) - source.widened:
            text = source.texts[rel].splitlines()
            line = chunk.first + site.line - 2
            words.update(re.findall(r"[A-Za-z_]\w*", text[line] if 0 <= line < len(text) else ""))
    for rel, wanted in firsts.items():
        module = rel.removesuffix(".py")
        for root in roots:
            if module.startswith(root + "/"):
                module = module[len(root) + 1 :]
                break
        modules.add(module.removesuffix("/__init__").replace("/", "."))
        try:
            tree = ast.parse(source.texts[rel])
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
                first in wanted or node.lineno in wanted
            ):
                names.add(node.name)
            if isinstance(node, ast.ClassDef):
                methods.update({f"{node.name}.{m}": n for m, n in _methods_at(node, lines[rel]).items()})
    return Reach(frozenset(modules), frozenset(names), methods, frozenset(words))


_NOT_CALLED = {"property", "cached_property", "setter", "getter", "deleter"}


def _methods_at(cls: ast.ClassDef, lines: set[int]) -> dict[str, int]:
    """The methods of `cls` whose lines (decorators included) hold one of `lines`, each with the
    positional arguments a call must pass (self left out; a static method's first one counts)."""
    out = {}
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if any(first <= line <= (node.end_lineno or node.lineno) for line in lines):
                decorators = {n.rsplit(".", 1)[-1] for d in node.decorator_list if (n := dotted_name(d))}
                if decorators & _NOT_CALLED:
                    continue  # a property: read, never called
                positional = len(node.args.posonlyargs) + len(node.args.args) - len(node.args.defaults)
                out[node.name] = max(0, positional - ("staticmethod" not in decorators))
    return out


def _order(n: int, widened: int, seed: int) -> list[int]:
    """The order the `n` sites are tried in, drawn from `seed`: the changed lines' first, then the
    last `widened` (those of the enclosing functions)."""
    rng = random.Random(seed)
    first, then = list(range(n - widened)), list(range(n - widened, n))
    rng.shuffle(first)
    rng.shuffle(then)
    return first + then


def _mutants(source: _Source, order: list[int]) -> Iterator[Mutant]:
    """The mutants of the sites in `order`: each distinct, compiling, and not the initial program
    (a mutant that undoes the fix is the bug itself, not a new invalid candidate)."""
    seen: set[str] = set()
    for i in order:
        rel, chunk, site = source.sites[i]
        m = mutant_at(rel, source.texts[rel], chunk, site)
        if m is None or m.source in seen or m.source == source.initial[rel]:
            continue
        seen.add(m.source)
        yield m


def _draw(first: Mutant, mutants: Iterator[Mutant], size: int, deadline: float | None) -> list[Mutant]:
    """A batch of up to `size` mutants starting with `first`, none drawn past `deadline` (each is
    a parse of its file, a second on a large module: 40 of them overshot a budget by as much). The
    first batch is drawn whole (`deadline` None): a spent budget still says what it left unjudged."""
    batch = [first]
    while len(batch) < size and (deadline is None or time.monotonic() <= deadline):
        m = next(mutants, None)
        if m is None:
            break
        batch.append(m)
    return batch


def generate_mutants(
    session: EngineSession, task: Task, scope: str = "all"
) -> tuple[list[str], list[Mutant], dict[str, str]]:
    """Every mutant of the reference's changed Python files in `scope` (see `mutation_scope`):
    (ids, mutants, id -> diff)."""
    source = _sites(session, task, scope)
    mutants = list(_mutants(source, list(range(len(source.sites)))))
    ids = _ids(mutants)
    diffs = {cid: tree_diff(task.initial, {**source.texts, m.file: m.source}) for cid, m in zip(ids, mutants)}
    return ids, mutants, diffs


def _choose(order: list[Kept], n: int) -> list[Kept]:
    """Up to `n`, for diversity: new failure set and new line, then new failure set, then new line, then any."""
    chosen: list[Kept] = []
    for need_set, need_line in ((True, True), (True, False), (False, True), (False, False)):
        for k in order:
            if len(chosen) >= n:
                return chosen
            if k in chosen:
                continue
            sets = {c.failed or (c.witness.call,) for c in chosen}
            lines = {(c.mutant.file, c.mutant.line) for c in chosen}
            if (not need_set or (k.failed or (k.witness.call,)) not in sets) and (
                not need_line or (k.mutant.file, k.mutant.line) not in lines
            ):
                chosen.append(k)
    return chosen


def _say(options: BuildOptions, line: str) -> None:
    if options.progress is not None:
        options.progress(line)


def _dropped(result: BuildResult) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(result.dropped.items())) or "none"


def build_panel(session: EngineSession, task: Task, options: BuildOptions = BuildOptions()) -> BuildResult:
    """Find the mutants to keep (nothing is written; see `write_panel`).

    Mutants are made lazily, in the order drawn from `seed`, and judged in batches: a build stops
    after `max_tried` mutants, when twice `max_invalid` are kept (enough to choose from for
    diversity), or past `budget_s`."""
    start = time.perf_counter()
    began = time.monotonic()
    budget_from = began if options.started is None else min(options.started, began)
    # Probing gets what the fixed costs before it (already spent) and after it (FINISH_S) leave.
    deadline = budget_from + options.budget_s - min(FINISH_S, options.budget_s / 10)
    _say(
        options,
        f"{began - budget_from:.1f} s of the {options.budget_s:g} s budget spent before the build "
        "(start, task load and copy); "
        f"probing may run until {max(0.0, deadline - budget_from):.1f} s",
    )
    # A rebuild replaces the generated mutants: they must not count as the panel it builds on.
    generated = (task.root / candidates_folder(task) / "mutants").resolve()
    task = replace(
        task,
        candidates=tuple(
            c for c in task.candidates if not (c.origin == "mutant" and c.source.resolve().is_relative_to(generated))
        ),
    )
    result = BuildResult(labelled_by="verifier" if task.verifier else "witnesses")
    timeout_s = options.timeout_s
    if task.verifier is not None:
        # Checked before anything else; a mutant that loops forever then costs a few times the
        # reference's run, not the task's whole limit.
        reference_s = reference_seconds(session, task, sandbox=options.sandbox)
        timeout_s = timeout_s or min(task.timeout_s, max(MIN_MUTANT_TIMEOUT_S, 10 * reference_s))
    scope = mutation_scope(task, options.mutate)
    source = _sites(session, task, scope)
    result.sites = len(source.sites)
    _say(options, _scope_line(source, scope, budget_from))
    reach = _reach(task, source)
    order = _order(len(source.sites), source.widened, options.seed)
    mutants = _mutants(source, order)
    kept: list[Kept] = []
    seen_signatures: set = set()
    made: list[Mutant] = []
    files = {rel for rel, _, _ in source.sites}
    batch_no = 0
    while result.tried < options.max_tried and len(kept) < 2 * options.max_invalid:
        first = next(mutants, None)
        if first is None:
            break  # every mutant was tried: the budget stopped nothing
        if batch_no and time.monotonic() > deadline:
            result.notes.append(
                f"stopped at the time budget ({options.budget_s:g} s) after {result.tried} mutants: "
                "the panel has the mutants kept so far (raise it with --budget-s)"
            )
            break
        batch = _draw(first, mutants, min(BATCH, options.max_tried - result.tried), None if not batch_no else deadline)
        batch_no += 1
        made += batch
        result.generated += len(batch)
        result.tried += len(batch)
        ids = _ids(made, files)[-len(batch) :]
        _judge_batch(
            session,
            task,
            options,
            timeout_s,
            dict(zip(ids, batch)),
            source.texts,
            result,
            kept,
            seen_signatures,
            deadline,
            reach,
        )
        _say(
            options,
            f"batch {batch_no}: {result.tried} mutants tried, {len(kept)} kept, dropped: {_dropped(result)} "
            f"({time.monotonic() - budget_from:.1f} s)",
        )
        if result.dropped.get(_OUT_OF_TIME):
            result.notes.append(
                f"stopped at the time budget ({options.budget_s:g} s) inside batch {batch_no}: "
                "the panel has the mutants kept so far (raise it with --budget-s)"
            )
            break
    result.kept = _choose(kept, options.max_invalid)
    result.elapsed_s = time.perf_counter() - start
    return result


def _judge_batch(
    session: EngineSession,
    task: Task,
    options: BuildOptions,
    timeout_s: float | None,
    by_id: dict[str, Mutant],
    texts: dict[str, str],
    result: BuildResult,
    kept: list[Kept],
    seen_signatures: set,
    deadline: float,
    reach: Reach,
) -> None:
    """Label (with the verifier) and probe one batch of mutants; add the keepers to `kept`. Past
    `deadline`, a mutant without a witness yet is not judged (not dropped as equivalent)."""
    tried = {cid: tree_diff(task.initial, {**texts, m.file: m.source}) for cid, m in by_id.items()}
    failed: dict[str, tuple[str, ...]] = {}
    if task.verifier is not None:
        judged = label_diffs(session, task, tried, "mutant", sandbox=options.sandbox, timeout_s=timeout_s)
        for cid, j in judged.items():
            if j.label is None:
                result.dropped["does not run (import error, timeout...)"] += 1
            elif j.label == "valid":
                result.dropped["accepted by the verifier (valid by the statement)"] += 1
            elif j.crash_only:
                result.dropped["only crashes"] += 1
            else:
                failed[cid] = j.failed
        tried = {cid: d for cid, d in tried.items() if cid in failed}
    with tempfile.TemporaryDirectory(prefix="prism-build-") as tmp:
        staged = staged_candidates(Path(tmp), tried, "mutant")
        probing = probe_candidates(
            session,
            task,
            staged,
            sandbox=options.sandbox,
            deadline=deadline,
            reach=reach,
            progress=options.progress,
            near=tuple(texts),
        )
    if tried and not probing.entries and not any("no entry point" in n for n in result.notes):
        result.notes.append(
            "no entry point called with literal arguments in the verifier or the task's "
            "suites: witness search has no inputs, so no mutant can be kept"
        )
    panel_signatures = set() if probing.stopped else {probing.signatures.get(c.id) for c in task.candidates}
    for cid in tried:  # in the seeded order
        sig = probing.signatures.get(cid)
        if probing.stopped and cid in probing.witnesses:
            # Signatures cut short by the deadline match on what was probed alone: tell candidates
            # apart by their witnesses instead.
            w = probing.witnesses[cid]
            sig = ("witness", w.call, tuple(sorted(w.got.values())))
        if cid in probing.unprobed:
            result.dropped["could not be probed (does not import, or hangs)"] += 1
        elif cid in probing.crash_only:
            result.dropped["crashes on every one of the suites' own inputs"] += 1
        elif cid not in probing.witnesses and probing.stopped:
            result.dropped[_OUT_OF_TIME] += 1
        elif cid not in probing.witnesses:
            result.dropped["no witness (open dimension or equivalent)"] += 1
        elif sig is not None and (sig in panel_signatures or sig in seen_signatures):
            result.dropped["behaves like another candidate"] += 1
        else:
            seen_signatures.add(sig)
            kept.append(Kept(cid, by_id[cid], tried[cid], probing.witnesses[cid], failed.get(cid, ())))


_OUT_OF_TIME = "not judged: the time budget ran out while probing"


def _note(k: Kept) -> str:
    w = k.witness
    got = next(iter(w.got.values()), "?")
    return (
        f"mutant of the reference, {k.mutant.description} (line {k.mutant.line} of {k.mutant.file}); "
        f"witness: {w.assertion_call} is {w.expected} for every valid candidate, this one gives {got}"
    )


def write_panel(task: Task, result: BuildResult) -> Task:
    """Replace the task's generated mutants with `result.kept`; return the reloaded task."""
    new = [
        NewCandidate(id=k.id, label="invalid", origin="mutant", diff=k.diff, note=_note(k))
        for k in sorted(result.kept, key=lambda k: k.id)
    ]
    return replace_mutants(task, new)

"""Results that last: a second session (a new process, as far as memory goes) takes a suite's
per-test results from `<cache>/results/` and runs no program whose results it has; a poisoned
entry (forged, garbage, huge, a symlink) is run again and the verdict is the fresh one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from prism_lsp.engine.panel import Suite
from prism_lsp.engine.session import RunOptions
from prism_lsp.scheduler.cached_session import CachedSession, open_results
from prism_lsp.scheduler.result_store import MAX_ENTRY_BYTES
from prism_lsp.tasks import load_task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TASK = FIXTURES / "mean-rounded"
OVERFIT = TASK / "suites" / "test_overfit.py"


def _judge(cache: Path, text: str, sandbox: str | None = None):
    """One command's session: (report, counts of what ran and what came from the cache)."""
    task = load_task(TASK)
    results, note = open_results(cache)
    assert note == ""
    with CachedSession(cache, 2, results=results) as session:
        report = session.report(task, Suite(task.suite_rel(OVERFIT), text), RunOptions(sandbox=sandbox))
        return report, session.counts


def _verdicts(report):
    return (
        report.metrics,
        report.baseline.outcome,
        [(c.id, c.outcome, [(t.name, t.outcome, t.line, t.message) for t in c.tests]) for c in report.candidates],
        [(f.kind, f.line, f.candidates) for f in report.findings],
    )


def _bundles(cache: Path) -> list[Path]:
    return sorted((cache / "results").glob("*.results"))


@pytest.fixture(scope="module")
def cold(tmp_path_factory):
    """A cache warmed by one run, and that run's report (copied per test, so each poisons its own)."""
    cache = tmp_path_factory.mktemp("results-cold")
    report, counts = _judge(cache, OVERFIT.read_text())
    assert (counts.programs_run, counts.programs_cached, counts.tests_run) == (11, 0, 3)
    return cache, report


def _copy(cold_cache: Path, tmp_path: Path) -> Path:
    import shutil

    cache = tmp_path / "cache"
    shutil.copytree(cold_cache / "results", cache / "results", symlinks=True)
    return cache


def test_a_second_session_runs_no_program_and_gives_the_same_report(cold, tmp_path):
    cache = _copy(cold[0], tmp_path)
    report, counts = _judge(cache, OVERFIT.read_text())
    assert (counts.programs_run, counts.programs_cached, counts.tests_run, counts.tests_cached) == (0, 11, 0, 3)
    assert _verdicts(report) == _verdicts(cold[1])
    mode = stat.S_IMODE(os.stat(cache / "results").st_mode)
    assert mode == 0o700  # private to the user, even after a copy that kept other bits


def test_sandbox_auto_unset_and_the_backend_it_plans_share_results(cold, tmp_path):
    """The server passes None for `auto`, `prism run --sandbox auto` passes 'auto': one key, computed
    without starting a pool, in every process."""
    cache = _copy(cold[0], tmp_path)
    for sandbox in ("auto", "bubblewrap"):
        _, counts = _judge(cache, OVERFIT.read_text(), sandbox)
        assert counts.programs_run == 0, sandbox


def test_editing_one_test_reruns_only_that_test(cold, tmp_path):
    cache = _copy(cold[0], tmp_path)
    edited = OVERFIT.read_text().replace("== 3", "in (2, 3)")
    assert edited != OVERFIT.read_text()
    report, counts = _judge(cache, edited)
    assert (counts.tests_run, counts.tests_cached) == (1, 2)
    fresh, _ = _judge(tmp_path / "fresh", edited)
    assert _verdicts(report) == _verdicts(fresh)


def _poison(cache: Path, how: str) -> int:
    """Poison the bundles (those with a failing test for the forgeries); how many it poisoned."""
    touched = 0
    for path in _bundles(cache):
        data = path.read_bytes()
        if how in ("forged-pass", "resigned") and b'"outcome": "fail"' not in data:
            continue
        touched += 1
        if how == "forged-pass":  # every failing test now says it passed; the signature is the old one
            path.write_bytes(data.replace(b'"outcome": "fail"', b'"outcome": "pass"'))
        elif how == "resigned":  # signed again, with a key that is not the folder's
            import hashlib
            import hmac

            _, _, body = data.replace(b'"outcome": "fail"', b'"outcome": "pass"').partition(b"\n")
            name = path.name.removesuffix(".results")
            mac = hmac.new(b"k" * 32, name.encode() + b"\n" + body, hashlib.sha256).hexdigest()
            path.write_bytes(mac.encode() + b"\n" + body)
        elif how == "garbage":
            path.write_bytes(data.split(b"\n", 1)[0] + b"\n{not json")
        elif how == "huge":
            path.write_bytes(data + b" " * (MAX_ENTRY_BYTES + 1))
        elif how == "symlink":  # a link to a valid bundle elsewhere: never followed
            target = cache / "elsewhere" / path.name
            target.parent.mkdir(exist_ok=True)
            path.rename(target)
            path.symlink_to(target)
    return touched


@pytest.mark.parametrize("how", ["forged-pass", "resigned", "garbage", "huge", "symlink"])
def test_a_poisoned_entry_is_run_again_and_gives_the_right_verdict(cold, tmp_path, how):
    cache = _copy(cold[0], tmp_path)
    poisoned = _poison(cache, how)
    assert poisoned >= 7  # the initial program and every candidate some test fails on
    report, counts = _judge(cache, OVERFIT.read_text())
    assert (counts.programs_run, counts.programs_cached) == (poisoned, 11 - poisoned), how
    assert _verdicts(report) == _verdicts(cold[1])
    assert report.baseline.outcome == "fail"  # the forged pass on the initial program did not count
    # Run again, the poisoned entries were replaced by good ones.
    _, again = _judge(cache, OVERFIT.read_text())
    assert again.programs_run == 0


def test_a_cache_folder_inside_the_repository_keeps_nothing_there(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    results, note = open_results(repo / ".cache", near=repo / "tests")
    assert results.disk is None and "inside the repository" in note
    assert not (repo / ".cache").exists()
    results, note = open_results(tmp_path / "elsewhere", near=repo / "tests")
    assert results.disk is not None and note == ""
    results, note = open_results(tmp_path / "off", enabled=False)
    assert results.disk is None and not (tmp_path / "off").exists()


def test_the_folder_is_bounded_and_the_least_recently_used_go_first(tmp_path, monkeypatch):
    from prism_lsp.model.outcome import TestResult
    from prism_lsp.scheduler import result_store
    from prism_lsp.scheduler.result_store import DiskStore

    monkeypatch.setattr(result_store, "MAX_TOTAL_BYTES", 40_000)
    store = DiskStore.open(tmp_path / "results")
    assert isinstance(store, DiskStore)
    record = {"k": (3, (TestResult("test_x", "fail", 4, "assert 1 == 2 " * 50, def_line=3),))}
    store.put("first", "ctx", record)
    os.utime(next((tmp_path / "results").glob("*.results")), (1, 1))  # written long ago...
    assert store.get("first", "ctx") == record  # ...but read now: recently used
    for i in range(100):
        store.put(f"digest-{i}", "ctx", record)
        if i % 5 == 0:
            assert store.get("first", "ctx") == record  # in use all along
    sizes = [p.stat().st_size for p in (tmp_path / "results").glob("*.results")]
    assert sum(sizes) <= 40_000 and len(sizes) < 100
    assert store.get("first", "ctx") == record  # kept: used more recently than the others of its time
    assert store.get("digest-0", "ctx") == {}  # the oldest went first
    assert store.get("digest-99", "ctx") == record


def test_a_results_folder_that_is_a_symlink_is_not_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "results").symlink_to(elsewhere)
    results, note = open_results(tmp_path / "cache")
    assert results.disk is None and "not a folder" in note
    assert list(elsewhere.iterdir()) == []  # not even the key was written through the link


def test_a_bundle_already_in_memory_is_read_again_only_once_another_process_rewrote_it(tmp_path):
    from prism_lsp.model.outcome import TestResult
    from prism_lsp.scheduler.result_cache import ResultCache
    from prism_lsp.scheduler.result_store import DiskStore

    store = DiskStore.open(tmp_path / "results")
    other = DiskStore.open(tmp_path / "results")  # another process's store on the same folder
    assert isinstance(store, DiskStore) and isinstance(other, DiskStore)
    first = (TestResult("test_a", "pass", 2),)
    other.put("tree", "ctx", {"a": (1, first)})
    cache = ResultCache(disk=store)
    cache.load("tree", "ctx")
    assert cache.get("tree", "a") == (TestResult("test_a", "pass", 1),) and store.counts.read == 1
    for _ in range(3):  # a one-test edit misses a key on every run: the bundle it read is not read again
        cache.load("tree", "ctx")
    assert store.counts.read == 1
    other.put("tree", "ctx", {"a": (1, first), "b": (5, (TestResult("test_b", "fail", 6, "assert 0"),))})
    cache.load("tree", "ctx")  # rewritten since: read, with the other process's new result
    assert store.counts.read == 2 and cache.get("tree", "b") == (TestResult("test_b", "fail", 1, "assert 0"),)

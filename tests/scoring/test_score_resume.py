"""Killing `prism score` midway (Ctrl-C, SIGKILL) and running it again: complete, identical, nothing scored twice."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from tests.conftest import ROOT
from tests.scoring.conftest import N_PAIRS, pair_files, prism


def wait_for_lines(path, n: int, proc: subprocess.Popen, deadline_s: float = 600) -> None:
    """Until the journal holds `n` lines (the run is midway), failing if the run ends first."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if path.is_file() and len(path.read_text().splitlines()) >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"prism score ended before {n} pairs were done: {proc.stderr.read()}")
        time.sleep(0.05)
    pytest.fail(f"fewer than {n} pairs done after {deadline_s} s")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["sigint", "sigkill"])
def test_a_killed_run_resumes_to_the_same_results(sig, reference, score_cache, tmp_path):
    folder, _, files = reference
    out = tmp_path / "out"
    args = ["score", str(folder / "pairs.txt"), "--json", "--out", str(out), "--cache-dir", str(score_cache)]
    proc = subprocess.Popen(
        [shutil.which("prism"), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
        # A job started in the background by a script inherits SIGINT ignored; Python then never raises
        # KeyboardInterrupt. Ctrl-C at a terminal is the default disposition.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    journal = out / "journal.jsonl"
    wait_for_lines(journal, 4, proc)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    if sig == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr
    else:
        assert proc.returncode == -signal.SIGKILL
    done_before = len(journal.read_text().splitlines())
    assert 4 <= done_before < N_PAIRS
    if sig == signal.SIGINT:  # cleaned on the way out; a SIGKILL may leave one, never read as a report
        assert not list(out.rglob(".partial-*"))
    stored = pair_files(out)
    assert len(stored) == done_before and all(files[name] == text for name, text in stored.items())

    again = prism(*args)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (folder / "stdout.json").read_text()  # the same bytes as one uninterrupted run
    assert pair_files(out) == files
    assert not list(out.rglob(".partial-*"))  # the rerun removed what the killed run half wrote
    keys = [(j["task"], j["suite_digest"]) for j in map(json.loads, journal.read_text().splitlines())]
    assert len(keys) == len(set(keys)) == N_PAIRS  # nothing scored twice


def test_a_half_written_report_left_by_a_sigkill_is_removed_when_the_folder_is_opened_again(tmp_path):
    from prism_lsp.scoring.store import ResultStore

    half = tmp_path / "pairs" / "cart-total" / ".partial-3_x3tazr.json"
    half.parent.mkdir(parents=True)
    half.write_text('{"status": "o')  # where the kill landed
    kept = half.parent / "0123abcd.json"
    kept.write_text("{}")
    ResultStore(tmp_path)
    assert not half.exists() and kept.exists()

"""`prism run` with a suite that forges text: nothing of a candidate's run below `full`, no
control sequence at any level, and the strictest reveal level wins (tables and --json)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import ROOT
from tests.surface.forger import BASELINE_SECRET, PRISM, SECRETS, SUITE, controls, forger_task, leaks


def prism(*args: str, cache) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PRISM, *args, "--cache-dir", str(cache)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return forger_task(tmp_path_factory.mktemp("forger") / "task")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("forger-cache")


@pytest.mark.parametrize("reveal", ["full", "labels", "counts"])
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_every_output_at_every_level(task, cache, reveal, as_json):
    proc = prism("run", str(task), str(task / SUITE), "--reveal", reveal, *(["--json"] if as_json else []), cache=cache)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout + proc.stderr
    assert controls(out) == [], "control sequences reach the terminal or the report"
    if reveal == "full":
        # Sanity: the suite does carry the secrets out, so the checks below can fail.
        assert sorted(leaks(out)) == sorted(SECRETS.values())
        return
    assert leaks(out) == []
    assert BASELINE_SECRET in out, "the initial program's own run is no secret"
    for cid in SECRETS:
        assert f"`{cid}`" not in out and f'"{cid}"' not in out
    if as_json:
        report = json.loads(proc.stdout)
        assert report["reveal"] == reveal
        candidates = report["candidates"]
        if reveal == "counts":
            assert candidates == []
            assert report["panel"] == {
                "valid_accepted": 0,
                "valid": 1,
                "invalid_rejected": 1,
                "invalid": 1,
                "errors": 0,
            }
        else:
            assert all(not c["reference"] and c["note"] == "" for c in candidates)
            names = {t["name"] for c in candidates for t in c["tests"]}
            assert names <= {
                "test_named_after_the_program[1]",
                "test_rejects_one_valid",
                "test_fixture_error",
                "test_execution_error",
            }
            assert all(t["message"] == "" for c in candidates for t in c["tests"])
    elif reveal == "counts":
        assert "reference" not in out.split("panel:")[0].split("initial program")[1]
        assert "panel: valid 0/1 besides the reference · invalid 1/1" in out
        for column in ("label", "verdict", "valid-1", "candidate-1"):
            assert column not in out


def test_the_manifests_level_holds_against_the_command_line(tmp_path, cache):
    task = forger_task(tmp_path / "task", reveal="counts")
    proc = prism("run", str(task), str(task / SUITE), "--reveal", "full", "--json", cache=cache)
    report = json.loads(proc.stdout)
    assert report["reveal"] == "counts" and report["candidates"] == []
    assert leaks(proc.stdout) == []

"""The habits around the gate: the pre-push hook of `.pre-commit-hooks.yaml`, and `action.yml`'s steps
run as GitHub would run them (their shell commands, in order, in a temp repository; GitHub itself
is out of reach, so the `uses:` steps are checked to take what the gate wrote)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import yaml

from tests.conftest import ROOT
from tests.repo.gitrepo import git, status

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def test_pre_push_hook_judges_what_the_push_adds(fixed_repo, cache_dir):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["stages"] == ["pre-push"] and hook["pass_filenames"] is False and hook["language"] == "python"
    base = git(fixed_repo, "rev-parse", "HEAD~1").strip()
    # What pre-commit sets for a pre-push hook: the range the push adds.
    env = {**os.environ, "PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD", "PRISM_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run(
        shlex.split(hook["entry"]), cwd=fixed_repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the weak test is below the gate: the push stops
    assert f"base {base[:12]}, fix HEAD" in proc.stdout and "FAIL: invalid rejection" in proc.stdout
    assert status(fixed_repo) == ""


def _substitute(text: str, context: dict[str, str]) -> str:
    # Every expression the action uses must be given here: a new one fails the test until it is.
    return EXPR.sub(lambda m: context[m.group(1)], text)


def test_action_steps_install_cache_gate_and_hand_sarif_to_the_upload(fixed_repo, tmp_path):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = {name: spec["default"] for name, spec in action["inputs"].items()}
    git(fixed_repo, "update-ref", "refs/remotes/origin/main", "HEAD~1")  # the pull request's base branch, fetched
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    cache = runner_temp / "prism-cache"
    output, summary, gh_path = tmp_path / "output", tmp_path / "summary.md", tmp_path / "path"
    context = {
        "github.action_path": str(ROOT),
        "runner.temp": str(runner_temp),
        "runner.os": "Linux",
        "github.sha": git(fixed_repo, "rev-parse", "HEAD").strip(),
        "inputs.base || (github.base_ref && format('origin/{0}', github.base_ref)) || ''": "origin/main",
        **{f"inputs.{k}": v for k, v in inputs.items()},
    }
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_PATH": str(gh_path),
    }
    steps = action["runs"]["steps"]
    ran, codes, logs = [], [], ""
    for step in steps:
        if "uses" in step:
            continue
        if output.exists():  # outputs of earlier steps, as `steps.<id>.outputs.<name>`
            for line in output.read_text().splitlines():
                name, _, value = line.partition("=")
                context[f"steps.gate.outputs.{name}"] = value
        step_env = {**env, **{k: _substitute(str(v), context) for k, v in step.get("env", {}).items()}}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _substitute(step["run"], context)],
            cwd=fixed_repo,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        ran.append(step["name"])
        codes.append(proc.returncode)
        logs += proc.stdout + proc.stderr
    assert ran == ["Install bubblewrap", "Install Prism", "Run the gate", "Exit as the gate did"]
    assert codes == [0, 0, 0, 1], logs  # the gate step records its status; the last one fails the job by it
    # The gate wrote its SARIF where the upload step reads it, and its trees where the cache step keeps them.
    by_name = {s["name"]: s for s in steps}
    upload = by_name["Upload SARIF"]["with"]
    sarif = fixed_repo / _substitute(upload["sarif_file"], context)
    log = json.loads(sarif.read_text())
    assert log["runs"][0]["automationDetails"]["id"] == "prism/gate/"
    assert _substitute(by_name["Cache Prism's program trees and results"]["with"]["path"], context) == str(cache)
    assert any(cache.rglob("*")) and "::notice file=tests/test_util.py,line=4" in logs
    assert "| tests/test_util.py |" in summary.read_text()
    sarif.unlink()
    assert status(fixed_repo) == ""

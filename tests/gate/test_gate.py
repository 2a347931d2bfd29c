"""`prism gate` on a real git repository: a fix with a weak regression test fails the gate with
SARIF and annotations on the test's lines; strengthened, it passes; the repository is not dirtied."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import jsonschema
import pytest

from tests.gate.change_repo import AFTER, BEFORE, STRONG, gate, repo_files
from tests.repo.gitrepo import commit, make_repo, status, write

SARIF_SCHEMA = Path(__file__).parents[1] / "scoring" / "schemas" / "sarif-2.1.0-rtm.5.json"


def test_weak_test_fails_the_gate_strong_test_passes_and_git_status_is_unchanged(
    fixed_repo, tmp_path, capsys, cache_dir, monkeypatch
):
    repo = fixed_repo
    before_status, repo_files_before = status(repo), repo_files(repo)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    sarif = tmp_path / "weak.sarif"
    code, out, err = gate(capsys, cache_dir, repo, "--base", "HEAD~1", "--sarif", str(sarif))
    assert code == 1, out + err
    assert "FAIL: invalid rejection" in out and "gate: failed" in out
    # The SARIF is what GitHub code scanning takes: schema-valid, repository-relative, fingerprinted.
    log = json.loads(sarif.read_text())
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    run = log["runs"][0]
    assert run["automationDetails"]["id"] == "prism/gate/"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    accepts = [r for r in run["results"] if r["ruleId"] == "accepts-invalid"]
    assert accepts, run["results"]
    location = accepts[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "tests/test_util.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 4  # the weak test's `def` line
    assert all(r["partialFingerprints"]["prismFinding/v1"] for r in run["results"])
    assert all(rule["help"]["text"] and rule["helpUri"] for rule in run["tool"]["driver"]["rules"])
    for rule in run["tool"]["driver"]["rules"]:  # a real page: the shipped document's section of the kind
        url = urlparse(rule["helpUri"])
        assert url.scheme == "file" and url.fragment == rule["id"]
        assert f"\n## {rule['id']}\n" in Path(unquote(url.path)).read_text()
    # The annotation is on the test's line, and the step summary has the table.
    annotations = [line for line in err.splitlines() if line.startswith("::")]
    assert any(line.startswith("::notice file=tests/test_util.py,line=4,endLine=") for line in annotations), err
    assert re.search(r"\| tests/test_util.py \| yes \| yes \| n/a \| \d+% \| no \| 1 \|", summary.read_text())
    assert status(repo) == before_status == ""
    assert repo_files(repo) == repo_files_before

    # Strengthened (and committed), the same gate passes; a rerun replaces the mutants it built.
    write(repo, {"tests/test_util.py": STRONG})
    commit(repo, "test: clamp at both bounds")
    code, out, err = gate(capsys, cache_dir, repo, "--base", "HEAD~2", "--json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["passed"] is True and report["schema_version"] == 1
    assert report["panel"]["mutants_built"] == report["panel"]["invalid"] >= 3
    assert report["summary"]["invalid_rejection"] == 100.0
    assert status(repo) == ""
    assert set(repo_files(repo)) == {"util.py", "tests/test_util.py", ".git/HEAD", ".git/config"} | {
        p for p in repo_files(repo) if p.startswith(".git/refs/")
    }


def test_a_change_without_test_modules_judged_nothing_and_never_passes(tmp_path, capsys, cache_dir):
    repo = make_repo(tmp_path / "repo", {"util.py": BEFORE})
    write(repo, {"util.py": AFTER})
    code, out, err = gate(capsys, cache_dir, repo, "--json")
    assert code == 1, out + err
    report = json.loads(out)
    assert report["passed"] is False
    assert "judged nothing" in report["checks"][0]["text"]
    assert status(repo).strip() == "M util.py"


def test_usage_errors_exit_2_with_nothing_written(tmp_path, capsys, cache_dir):
    repo = make_repo(tmp_path / "repo", {"util.py": BEFORE})
    code, _, err = gate(capsys, cache_dir, repo)
    assert code == 2 and "no change" in err
    bad = tmp_path / "baseline.json"
    bad.write_text(json.dumps({"schema_version": 1, "summary": {"jsf": "high"}}))
    write(repo, {"util.py": AFTER})
    code, _, err = gate(capsys, cache_dir, repo, "--baseline", str(bad))
    assert code == 2 and str(bad) in err and "summary.jsf" in err
    with pytest.raises(SystemExit) as exited:
        gate(capsys, cache_dir, repo, "--fail-under-invalid-rejection", "120")
    assert exited.value.code == 2 and "expected a percentage from 0 to 100" in capsys.readouterr().err
    assert not (repo / "prism.toml").exists()

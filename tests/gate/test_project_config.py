"""`[tool.prism]` in pyproject.toml: defaults under the command line, bad values named once with file and key;
the committed JSON Schemas are what the pydantic models give, and the fixtures' manifests validate."""

from __future__ import annotations

import json
import re
import tomllib

import jsonschema
import pytest

from prism_lsp.model.json_schemas import render, schemas
from tests.conftest import FIXTURES, ROOT
from tests.gate.change_repo import gate
from tests.repo.gitrepo import prism, write


def test_committed_schemas_are_up_to_date():
    for name, schema in schemas().items():
        committed = ROOT / "schemas" / name
        assert committed.read_text() == render(schema), f"run: python -m prism_lsp.model.json_schemas schemas ({name})"


def test_every_fixture_manifest_validates_and_a_bad_one_does_not():
    schema = json.loads((ROOT / "schemas" / "prism.toml.schema.json").read_text())
    manifests = sorted(FIXTURES.glob("*/prism.toml"))
    assert len(manifests) >= 8
    for path in manifests:
        jsonschema.validate(tomllib.loads(path.read_text()), schema, cls=jsonschema.Draft202012Validator)
    bad = tomllib.loads(manifests[0].read_text())
    bad["task"]["sandbox"] = "chroot"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)


def test_the_project_sets_the_gate_and_the_command_line_wins(fixed_repo, capsys, cache_dir):
    write(fixed_repo, {"pyproject.toml": "[tool.prism]\nfail-under-invalid-rejection = 20\nmax-invalid = 5\n"})
    code, out, err = gate(capsys, cache_dir, fixed_repo, "--base", "HEAD~1")
    assert code == 0, out + err  # the weak test rejects 2 of the 5 mutants: 40 %
    assert re.search(r"invalid rejection \d+% >= 20% \(--fail-under-invalid-rejection\)", out), out
    code, out, err = gate(capsys, cache_dir, fixed_repo, "--base", "HEAD~1", "--fail-under-invalid-rejection", "80")
    assert code == 1, out + err


def test_the_project_can_hide_more_of_the_panel(fixture_copy, capsys, cache_dir):
    task = fixture_copy("mean-rounded")
    (task / "pyproject.toml").write_text('[tool.prism]\nreveal = "counts"\ntimeout = 20\n')
    code, out, err = prism(
        capsys,
        "run",
        str(task / "suites" / "test_overfit.py"),
        "--json",
        "--sandbox",
        "bubblewrap",
        "--cache-dir",
        str(cache_dir),
    )
    report = json.loads(out)
    assert code == 1 and report["reveal"] == "counts" and report["candidates"] == [] and report["panel"]


def test_bad_values_are_named_once_with_file_and_key(fixture_copy, capsys, cache_dir):
    task = fixture_copy("mean-rounded")
    pyproject = task / "pyproject.toml"
    pyproject.write_text('[tool.prism]\nsandbox = "none"\nworkers = 0\ntimout = 3\n')
    code, out, err = prism(capsys, "run", str(task / "suites" / "test_strong.py"), "--cache-dir", str(cache_dir))
    assert code == 2 and out == ""
    assert err.count("error:") == 1 and str(pyproject) in err.replace("\n", "")
    for key in (
        "[tool.prism] sandbox",
        "the project cannot turn the sandbox off",
        "[tool.prism] workers",
        "[tool.prism] timout: unknown key",
    ):
        assert key in " ".join(err.split()), err

"""Every manifest mistake is a `ManifestError` naming the file, the key and what was expected."""

import hashlib

import pytest

from prism_lsp.model.manifest import ManifestError
from prism_lsp.tasks import find_task_root, load_task
from tests.model.manifests import GOOD_CANDIDATES, TASK, make

CASES = [
    ("not toml", "[task\nid = 1", "", "invalid TOML"),
    ("no task table", GOOD_CANDIDATES, "task", "missing [task] table"),
    ("missing id", '[task]\ninitial = "initial"\n' + GOOD_CANDIDATES, "task.id", "missing required key"),
    ("bad id", '[task]\nid = "Has Spaces"\n' + GOOD_CANDIDATES, "task.id", "[a-z0-9._-]+"),
    ("unknown task key", TASK + "timeout = 5\n" + GOOD_CANDIDATES, "task.timeout", "unknown key"),
    ("negative timeout", TASK + "timeout_s = -1\n" + GOOD_CANDIDATES, "task.timeout_s", "greater than 0"),
    ("bad sandbox", TASK + 'sandbox = "chroot"\n' + GOOD_CANDIDATES, "task.sandbox", "'chroot'"),
    ("no candidates", TASK, "candidate", "at least one"),
    ("bad label", TASK + GOOD_CANDIDATES.replace('"invalid"', '"wrong"'), "candidate[1] (bad).label", "'wrong'"),
    (
        "two references",
        TASK
        + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "bad"\nreference = true').replace(
            '"invalid"', '"valid"'
        ),
        "candidate.reference",
        "exactly one reference, found 2",
    ),
    (
        "no reference",
        TASK + GOOD_CANDIDATES.replace("reference = true\n", ""),
        "candidate.reference",
        "exactly one reference, found 0",
    ),
    (
        "invalid reference",
        TASK + GOOD_CANDIDATES.replace('"valid"', '"invalid"', 1),
        "candidate[0] (reference).label",
        'must be labelled "valid"',
    ),
    (
        "duplicate ids",
        TASK + GOOD_CANDIDATES.replace('id = "bad"', 'id = "reference"'),
        "candidate[1] (reference).id",
        "duplicate candidate id",
    ),
    (
        "patch and overlay",
        TASK + GOOD_CANDIDATES.replace('patch = "ref.diff"', 'patch = "ref.diff"\noverlay = "bad"'),
        "candidate[0] (reference)",
        "exactly one of `patch` or `overlay`",
    ),
    (
        "missing patch file",
        TASK + GOOD_CANDIDATES.replace("ref.diff", "nope.diff"),
        "candidate[0] (reference).patch",
        "'nope.diff' does not exist",
    ),
    (
        "missing overlay folder",
        TASK + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "gone"'),
        "candidate[1] (bad).overlay",
        "'gone' does not exist",
    ),
    (
        "missing initial",
        '[task]\nid = "t"\ninitial = "src"\n' + GOOD_CANDIDATES,
        "task.initial",
        "folder 'src' does not exist",
    ),
    # A path to the wrong kind of thing says what is there, not that it is missing.
    (
        "initial is a file",
        '[task]\nid = "t"\ninitial = "ref.diff"\n' + GOOD_CANDIDATES,
        "task.initial",
        "'ref.diff' is a file, not a folder",
    ),
    (
        "overlay is a file",
        TASK + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "ref.diff"'),
        "candidate[1] (bad).overlay",
        "'ref.diff' is a file, not a folder; expected files that replace",
    ),
    (
        "patch is a folder",
        TASK + GOOD_CANDIDATES.replace('patch = "ref.diff"', 'patch = "bad"'),
        "candidate[0] (reference).patch",
        "'bad' is a folder, not a file; expected a unified diff",
    ),
    (
        "dockerfile is a folder",
        TASK + 'dockerfile = "bad"\n' + GOOD_CANDIDATES,
        "task.dockerfile",
        "'bad' is a folder, not a file",
    ),
    # TOML has native booleans and numbers: a quoted one is a mistake, never coerced.
    (
        "quoted reference",
        TASK + GOOD_CANDIDATES.replace("reference = true", 'reference = "yes"'),
        "candidate[0] (reference).reference",
        "expected a boolean (true or false, without quotes), got the string 'yes'",
    ),
    (
        "quoted false reference",
        TASK + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "bad"\nreference = "no"'),
        "candidate[1] (bad).reference",
        "expected a boolean",
    ),
    (
        "integer reference",
        TASK + GOOD_CANDIDATES.replace("reference = true", "reference = 1"),
        "candidate[0] (reference).reference",
        "got the integer 1",
    ),
    (
        "quoted timeout",
        TASK + 'timeout_s = "10"\n' + GOOD_CANDIDATES,
        "task.timeout_s",
        "expected a number (without quotes), got the string '10'",
    ),
    ("boolean timeout", TASK + "timeout_s = true\n" + GOOD_CANDIDATES, "task.timeout_s", "got the boolean true"),
    ("nan timeout", TASK + "timeout_s = nan\n" + GOOD_CANDIDATES, "task.timeout_s", "finite number"),
    ("infinite timeout", TASK + "timeout_s = inf\n" + GOOD_CANDIDATES, "task.timeout_s", "finite number"),
    (
        "quoted memory",
        TASK + 'memory_mb = "512"\n' + GOOD_CANDIDATES,
        "task.memory_mb",
        "expected an integer (without quotes), got the string '512'",
    ),
    ("fractional memory", TASK + "memory_mb = 512.5\n" + GOOD_CANDIDATES, "task.memory_mb", "expected an integer"),
    (
        "number for a string",
        TASK + GOOD_CANDIDATES.replace('label = "invalid"', 'label = "invalid"\nnote = 3'),
        "candidate[1] (bad).note",
        "expected a string (in quotes), got the integer 3",
    ),
    (
        "path escapes",
        TASK + GOOD_CANDIDATES.replace("ref.diff", "../../etc/passwd"),
        "candidate[0] (reference).patch",
        "leaves the task folder",
    ),
    (
        "bad digest shape",
        TASK + GOOD_CANDIDATES.replace('patch = "ref.diff"', 'patch = "ref.diff"\nsha256 = "abc"'),
        "candidate[0] (reference).sha256",
        "64 lowercase hex",
    ),
    (
        "digest mismatch",
        TASK + GOOD_CANDIDATES.replace('patch = "ref.diff"', 'patch = "ref.diff"\nsha256 = "' + "0" * 64 + '"'),
        "candidate[0] (reference).sha256",
        "digest mismatch",
    ),
    ("candidate not array", TASK + '[candidate]\nid = "x"\n', "candidate", "array of tables"),
]


@pytest.mark.parametrize("name,toml,key,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_manifest_names_file_key_and_expectation(tmp_path, name, toml, key, expected):
    make(tmp_path, toml)
    with pytest.raises(ManifestError) as info:
        load_task(tmp_path)
    err = info.value
    assert err.file.endswith("prism.toml")
    assert err.key == key
    assert expected in err.problem
    assert str(err).startswith(str(tmp_path / "prism.toml"))


def test_matching_digest_is_accepted(tmp_path):
    make(tmp_path, TASK + GOOD_CANDIDATES)
    digest = hashlib.sha256((tmp_path / "ref.diff").read_bytes()).hexdigest()
    (tmp_path / "prism.toml").write_text(
        TASK + GOOD_CANDIDATES.replace('patch = "ref.diff"', f'patch = "ref.diff"\nsha256 = "{digest}"')
    )
    task = load_task(tmp_path)
    assert task.reference.id == "reference" and task.reference.sha256 == digest


def test_missing_manifest(tmp_path):
    with pytest.raises(ManifestError, match="no prism.toml here"):
        load_task(tmp_path)


def test_nearest_manifest_up_the_tree(tmp_path):
    make(tmp_path, TASK + GOOD_CANDIDATES)
    deep = tmp_path / "initial" / "tests" / "unit"
    deep.mkdir(parents=True)
    (deep / "test_x.py").write_text("")
    assert find_task_root(deep / "test_x.py") == tmp_path.resolve()
    assert (
        find_task_root(tmp_path.parent / "elsewhere.py") is None
        or find_task_root(tmp_path.parent / "elsewhere.py") != tmp_path
    )


def test_native_toml_types_are_accepted(tmp_path):
    """Strictness must not reject what TOML writes natively: an integer timeout is a number."""
    make(tmp_path, TASK + "timeout_s = 5\nmemory_mb = 512\n" + GOOD_CANDIDATES)
    task = load_task(tmp_path)
    assert task.timeout_s == 5.0 and task.memory_mb == 512 and task.reference.id == "reference"
    make(
        tmp_path,
        TASK + "timeout_s = 2.5\n" + GOOD_CANDIDATES.replace('overlay = "bad"', 'overlay = "bad"\nreference = false'),
    )
    assert load_task(tmp_path).timeout_s == 2.5

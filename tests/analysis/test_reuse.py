"""A new version of a buffer, parsed as an edit of the last (`analysis.reuse`), gives the whole
parse's tree: on real modules under random edits (broken ones included), every top-level statement
has the same shape at the same place, and the suite map (tests, assertions, syntax errors) is the
one a parse from scratch gives. And an edit parses only the statements it touched."""

from __future__ import annotations

import random
import subprocess
import tempfile
from pathlib import Path

import pytest

from prism_lsp.analysis import discovery, regions, reuse, suite_map
from prism_lsp.analysis.regions import parse_chunks
from prism_lsp.analysis.source import Source, parse_bytes, top_level
from tests.conftest import ROOT

# What an author types or deletes, at the start of a random line (table of edits, by name).
SNIPPETS = {
    "an indented line": "    x = 1\n",
    "a new test": "def test_new():\n    assert f(1) == 2\n",
    "an open paren": "(",
    "a triple quote": '"""',
    "a continued line": "y = 1 \\\n",
    "a comment line": "# note\n",
    "a decorator": "@pytest.mark.skip\n",
    "an else": "else:\n",
    "a test class": "class TestX:\n    def test_a(self):\n        assert True\n",
    "four spaces": "    ",
    "a tab": "\t",
    "a statement without newline": "z = 2",
    "a form feed": "\f",
    "a semicolon": ";",
    "a closing bracket": ")\n",
    "a non-ASCII name": "é = 'ü'\n",
}


def _modules() -> dict[str, str]:
    """Real pytest modules: Prism's own, and more-itertools' 7,000-line one from its bundle."""
    found = {
        path.name: path.read_text()
        for path in (ROOT / "tests" / "analysis" / "test_suite_map.py", ROOT / "tests" / "server" / "test_lenses.py")
        if path.is_file()
    }
    bundle = ROOT / "bench" / "real_repos" / "more-itertools-chunked-negative.bundle"
    return found | {"test_more.py": _from_bundle(bundle, "tests/test_more.py")}


_BUNDLE_TEXT: dict[tuple[Path, str], str] = {}


def _from_bundle(bundle: Path, rel: str) -> str:
    """A file of a case's git bundle (cloned once a session: a bundle cannot be read in place)."""
    key = (bundle, rel)
    if key not in _BUNDLE_TEXT:
        with tempfile.TemporaryDirectory() as where:
            subprocess.run(["git", "clone", "-q", str(bundle), where], check=True, capture_output=True)
            _BUNDLE_TEXT[key] = (Path(where) / rel).read_text()
    return _BUNDLE_TEXT[key]


def _edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    what = rng.random()
    if what < 0.45:
        lines[at] = rng.choice(list(SNIPPETS.values())) + lines[at]
    elif what < 0.6:
        del lines[at]
    elif what < 0.75 and lines[at]:
        cut = rng.randrange(len(lines[at]))
        lines[at] = lines[at][:cut] + lines[at][cut + 1 :]
    elif what < 0.9:
        lines[at] = lines[at] + "  # edited"
    else:
        lines[at] = lines[at][4:] if lines[at].startswith("    ") else "    " + lines[at]
    return "\n".join(lines)


def _shape(text: str, chunks) -> list[tuple]:
    """Each top-level node: its tree (as an s-expression) and where it is in the whole buffer."""
    source = Source(text)
    return [
        (str(node), source.byte_range(node, chunk), node.start_point.row + chunk.first_row, node.start_point.column)
        for node, chunk in top_level(chunks)
    ]


def _facts(text: str) -> tuple:
    found = suite_map.parse_suite(text)
    return (
        [(t.name, t.span, t.name_span, t.body_hash, [(a.span, a.text) for a in t.assertions]) for t in found.tests],
        [(a.span, a.text) for a in found.helper_assertions],
        [(e.span, e.message) for e in found.syntax_errors],
        found.problem,
    )


def _fresh_facts(text: str, monkeypatch) -> tuple:
    with monkeypatch.context() as m:
        m.setattr(regions, "reparse", lambda source: None)
        m.setattr(regions, "remember", lambda source, chunks: None)
        suite_map.parse_suite.cache_clear()
        discovery.discover.cache_clear()
        facts = _facts(text)
    suite_map.parse_suite.cache_clear()
    discovery.discover.cache_clear()
    return facts


@pytest.fixture(autouse=True)
def _no_recent_versions():
    reuse._recent.clear()
    yield
    reuse._recent.clear()


@pytest.mark.parametrize("name", ["test_suite_map.py", "test_lenses.py", "test_more.py"])
def test_random_edits_parse_as_the_whole_buffer_does(name, monkeypatch):
    text = last_clean = _modules()[name]
    rng = random.Random(name)
    reused = 0
    steps = 20 if name == "test_more.py" else 150
    for step in range(steps):
        text = _edit(text, rng)
        whole = parse_bytes(text.encode("utf-8", errors="surrogatepass")).root_node
        chunks, clean = parse_chunks(Source(text))
        assert clean == (not whole.has_error), f"step {step}"
        if clean:
            assert _shape(text, chunks) == _shape(text, [Source(text).whole()]), f"step {step}"
            reused += len(chunks) > 1
        if step % 10 == 0:  # the suite map, as the editor shows it (slower: a few steps)
            suite_map.parse_suite.cache_clear()
            discovery.discover.cache_clear()
            assert _facts(text) == _fresh_facts(text, monkeypatch), f"step {step}"
        if clean:
            last_clean = text
        elif rng.random() < 0.7:  # the author mends the mistake (an undo), or types on through it
            text = last_clean
    assert reused > steps // 4, "the edits never reused a parse: the test would prove nothing"


def test_an_edit_parses_only_the_statement_it_touched(monkeypatch):
    text = _modules()["test_more.py"]
    parsed: list[int] = []
    real = reuse.parse_bytes
    monkeypatch.setattr(reuse, "parse_bytes", lambda data: parsed.append(len(data)) or real(data))
    parse_chunks(Source(text))
    lines = text.split("\n")
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("    def test_"))
    for n in range(3):
        lines[middle] += f"  # edit {n}"
        parsed.clear()
        chunks, clean = parse_chunks(Source("\n".join(lines)))
        assert clean
    # After the first edit split the module, the next ones parse one top-level class of 7,000 lines.
    assert 0 < sum(parsed) < len(text) // 20
    assert len(chunks) == 3


# Edits at a piece's edge that change how the pieces around it parse (table: name, old, new).
EDGES = [
    (
        "indenting the next def joins it to the class",
        "class TestA:\n    def test_a(self):\n        assert 1\ndef test_b():\n    assert 2\n",
        "class TestA:\n    def test_a(self):\n        assert 1\n    def test_b():\n    assert 2\n",
    ),
    (
        "a backslash continues onto the next def",
        "x = 1\ndef test_b():\n    assert 2\n",
        "x = 1 \\\ndef test_b():\n    assert 2\n",
    ),
    (
        "a statement typed before a def without its newline",
        "x = 1\ndef test_b():\n    assert 2\n",
        "x = 1\nz = 2def test_b():\n    assert 2\n",
    ),
    (
        "an open triple quote swallows what follows",
        "x = 1\ndef test_b():\n    assert 2\n",
        'x = """1\ndef test_b():\n    assert 2\n',
    ),
    (
        "a comment line then an indented one",
        "class TestA:\n    x = 1\ny = 2\n",
        "class TestA:\n    x = 1\n# c\n    y = 2\n",
    ),
    ("an else after an if", "if x:\n    pass\ny = 2\n", "if x:\n    pass\nelse:\n    y = 2\n"),
    (
        "a decorator put on the next def",
        "x = 1\ndef test_b():\n    assert 2\n",
        "x = 1\n@mark\ndef test_b():\n    assert 2\n",
    ),
    ("the last line's newline deleted", "x = 1\ny = 2\n", "x = 1\ny = 2"),
]


@pytest.mark.parametrize(("what", "old", "new"), EDGES, ids=[e[0] for e in EDGES])
def test_an_edit_at_a_piece_edge_parses_as_the_whole_buffer(what, old, new):
    filler = "".join(f"def test_{i}():\n    assert {i}\n\n" for i in range(40))
    old, new = filler + old + filler, filler + new + filler
    parse_chunks(Source(old))
    parse_chunks(Source(old.replace("assert 3\n", "assert 3  # split\n")))  # several pieces now
    parse_chunks(Source(old))
    chunks, clean = parse_chunks(Source(new))
    whole = parse_bytes(new.encode()).root_node
    assert clean == (not whole.has_error)
    if clean:
        assert _shape(new, chunks) == _shape(new, [Source(new).whole()])

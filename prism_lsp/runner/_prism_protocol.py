"""The runner protocol: every message the host, the runner and a forked program exchange.

The only module the host (`engine/pool.py`, `engine/requests.py`, `engine/results.py`, ...) and the
runner share, so stdlib only: the runner imports it by file inside sandboxes whose Python
has nothing of Prism. Messages are JSON objects, one per line, each with a `kind`.

  host -> runner   `run` (RunRequest), then `seal` (Seal) once the runner said `started`
  runner -> host   `ready` (Ready) once, then per request `started` (Started) and `result` (Result)
  child -> runner  `start`/`done` per test (TestStart, TestDone), then `report` (ChildReport)
                   or `fatal` (Fatal): read only by the runner, never passed on as they are
                   (how the program ended is the runner's own `waitpid`, never a message)

`decode` validates: a message of an unknown kind, a missing field or a field of the
wrong type raises `ProtocolError` naming it; the host turns that into an `error` outcome.

Each field is declared once, as a dataclass field: its annotation says which JSON values it
accepts, its default (or its lack of one) whether a message may leave it out. The few fields where
the wire and the constructor differ say so in their `metadata` (`_NONE_WHEN_ABSENT`,
`_REQUIRED_ON_WIRE`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar

PROTOCOL_VERSION = 2
# A line longer than this from a runner is not an answer (the host stops reading and replaces the runner).
MAX_LINE = 64 << 20


class _Judged(Protocol):
    @property
    def outcome(self) -> str: ...


_T = TypeVar("_T", bound=_Judged)


def program_rule(tests: Sequence[_T]) -> tuple[str, _T | None]:
    """The program-outcome rule, said once for the runner and the host: any failing test rejects
    (`fail`); else the first erroring test makes the program an `error` (returned, for its reason);
    else `pass`. Whether there are tests at all is the caller's to say."""
    if any(t.outcome == "fail" for t in tests):
        return "fail", None
    errored = next((t for t in tests if t.outcome == "error"), None)
    return ("error", errored) if errored is not None else ("pass", None)


class ProtocolError(ValueError):
    """A message that is not JSON, not an object, of an unknown kind or with a bad field."""


# Bounds of a test's `covered` (what a program could inflate): files, and lines per file.
MAX_COVERED_FILES = 64
MAX_COVERED_LINES = 20_000

# A field's `metadata` where a message on the wire is held to other terms than the constructor:
# the message may leave out a field the constructor requires (then None), or must carry one the
# constructor defaults. Elsewhere a field's default (or none) is the wire's too.
_NONE_WHEN_ABSENT: dict[str, Any] = {"wire_default": None}
_REQUIRED_ON_WIRE: dict[str, Any] = {"wire_default": ...}

# The JSON values an annotation's name accepts: a `float` takes an integer too (JSON's `1`). A
# message class's name accepts the object it is read from (or the message itself).
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "None": (type(None),),
    "list": (list,),
    "dict": (dict,),
}


class _WireField(NamedTuple):
    """How `from_dict` reads one field of a message: derived from its dataclass field."""

    name: str
    types: tuple[type, ...]
    default: Any  # `...`: a message without the field is refused
    factory: Callable[[], Any] | None  # a fresh list or dict for each message that leaves it out


def _union_parts(annotation: str) -> list[str]:
    """The members of `annotation`'s top-level `|` (`list[str] | None` -> `list[str]`, `None`)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(annotation):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(annotation[start:i].strip())
            start = i + 1
    return [*parts, annotation[start:].strip()]


def _accepted(owner: str, name: str, annotation: object) -> tuple[type, ...]:
    """The JSON types field `name` accepts, read from its annotation's text. The text, not the
    evaluated type: the runner runs under whatever interpreter a task's image holds, where
    evaluating `int | None` needs 3.10; `from __future__ import annotations` keeps the text."""
    if not isinstance(annotation, str):
        raise TypeError(f"{owner}.{name}: annotation {annotation!r} is not text")
    accepted: list[type] = []
    for part in _union_parts(annotation):
        base = part.split("[", 1)[0].strip()
        message = globals().get(base)
        if base in _JSON_TYPES:
            accepted += _JSON_TYPES[base]
        elif isinstance(message, type) and issubclass(message, _Message):
            accepted += (dict, message)
        else:
            raise TypeError(f"{owner}.{name}: no JSON type for {part!r}")
    return tuple(accepted)


def _wire_fields(cls: type[_Message]) -> tuple[_WireField, ...]:
    """How `from_dict` reads each field of message class `cls`, from its dataclass fields."""
    wire = []
    for f in fields(cls):  # type: ignore[arg-type]
        default: Any = ...
        factory: Callable[[], Any] | None = None
        if "wire_default" in f.metadata:
            default = f.metadata["wire_default"]
        elif f.default is not MISSING:
            default = f.default
        elif f.default_factory is not MISSING:
            factory = f.default_factory
        wire.append(_WireField(f.name, _accepted(cls.__name__, f.name, f.type), default, factory))
    return tuple(wire)


def _plain(value: Any) -> Any:
    """`value` as JSON-ready data. `dataclasses.asdict` deep-copies every field (measured: 20 µs a
    test entry, a quarter of a millisecond a 12-test report); messages hold only JSON values,
    lists, dicts and other messages, so walking the fields is enough."""
    if isinstance(value, _Message):
        return {f.name: _plain(getattr(value, f.name)) for f in value._wire}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


class _Message:
    kind: ClassVar[str]
    # How each field is read from the wire, set for every message class below its definitions.
    _wire: ClassVar[tuple[_WireField, ...]]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **_plain(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        if not isinstance(data, dict):
            raise ProtocolError(f"{cls.kind} message is not an object: {data!r:.80}")
        values = {}
        for name, types, default, factory in cls._wire:
            if name in data:
                value = data[name]
                # JSON has no separate bool; a bool is never a line number or a count.
                if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                    raise ProtocolError(f"{cls.kind} message with a bad `{name}`: {value!r:.80}")
            elif factory is not None:
                value = factory()
            elif default is ...:
                raise ProtocolError(f"{cls.kind} message without `{name}`")
            else:
                value = default
            values[name] = value
        obj = cls(**values)
        obj._validate_nested()
        return obj

    def _validate_nested(self) -> None:
        pass


@dataclass
class Assertion(_Message):
    """One executed `assert` of the suite: where, how it went, what it compared."""

    kind: ClassVar[str] = "assertion"
    line: int | None = field(metadata=_NONE_WHEN_ABSENT)
    outcome: str
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = _plain(self)
        return plain

    def _validate_nested(self) -> None:
        if self.outcome not in ("pass", "fail"):
            raise ProtocolError(f"assertion with outcome {self.outcome!r:.40}")


@dataclass
class TestEntry(_Message):
    """One test of the suite on one program (the per-test entry of every result)."""

    __test__ = False  # not a pytest test class, whatever its name
    kind: ClassVar[str] = "test"
    name: str
    outcome: str = field(default="pass", metadata=_REQUIRED_ON_WIRE)
    line: int | None = None
    def_line: int | None = None
    message: str = ""
    reason: str | None = None
    reached_change: bool | None = None
    assertions: list[Assertion] = field(default_factory=list)
    duration_ms: float = 0.0
    # Tree-relative file -> first lines of the measured statements (changed, entry points') it ran.
    covered: dict[str, list[int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = _plain(self)
        return plain

    def _validate_nested(self) -> None:
        if self.outcome not in ("pass", "fail", "error"):
            raise ProtocolError(f"test {self.name!r:.80} with outcome {self.outcome!r:.40}")
        if len(self.covered) > MAX_COVERED_FILES:
            raise ProtocolError(f"test {self.name!r:.80} covering {len(self.covered)} files")
        for rel, lines in self.covered.items():
            if not isinstance(lines, list) or len(lines) > MAX_COVERED_LINES:
                raise ProtocolError(f"test {self.name!r:.80} with a bad `covered` of {rel!r:.80}")
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in lines):
                raise ProtocolError(f"test {self.name!r:.80} with a non-number line in `covered` of {rel!r:.80}")
        self.assertions = [a if isinstance(a, Assertion) else Assertion.from_dict(a) for a in self.assertions]


# The line a run reports under a marked file (`RunRequest.marks`) it read, or under each when it
# starts a process (`prism_lsp/engine/reach.py`).
READ_MARK = 9_999_999


@dataclass
class RunRequest(_Message):
    """Run a suite on one program tree. `id` is opaque (never a candidate's name)."""

    kind: ClassVar[str] = "run"
    id: str
    tree: str
    suite_rel: str
    suite_text: str
    changed: dict[str, list[int]] = field(default_factory=dict)
    timeout_s: float = 10
    memory_mb: int = 1024
    output_limit: int = 16 << 20
    pids_max: int = 0
    tests: list[str] | None = None
    command: str | None = None
    # The initial state's pytest configuration file (path in the tree, text): the only one read.
    config_rel: str | None = None
    config_text: str | None = None
    # Tree-relative import roots (a `src/` layout) put first on sys.path: each program imports its
    # own tree, never a checkout the task's venv has installed editable.
    pythonpath: list[str] = field(default_factory=list)
    # Entry points (`module:function`) whose statements every test's `covered` reports (entry coverage).
    entry: list[str] = field(default_factory=list)
    # The suite's code as the host compiled it (`_prism_suitecode`): taken by a runner whose
    # Python and pytest match `suite_code_tag`, else compiled there from `suite_text`.
    suite_code_tag: str | None = None
    suite_code: str | None = None
    # Lines probed like changed ones on the initial program of a selected run, and files whose
    # reading (or any process started) the run reports (`prism_lsp/engine/reach.py`).
    marks: dict[str, list[int]] = field(default_factory=dict)

    def probed(self) -> dict[str, list[int]]:
        """The lines probed per tree-relative file: the changed ones and the marks."""
        if not self.marks:
            return self.changed
        out = {rel: list(lines) for rel, lines in self.changed.items()}
        for rel, lines in self.marks.items():
            out[rel] = sorted(set(out.get(rel, ())) | set(lines))
        return out


@dataclass
class Seal(_Message):
    """The secret the runner stamps on the result of request `id`; sent only once the program runs."""

    kind: ClassVar[str] = "seal"
    id: str
    secret: str


@dataclass
class Ready(_Message):
    """The runner is warm and waits for requests."""

    kind: ClassVar[str] = "ready"
    python: str
    pytest: str
    pid: int
    protocol: int = PROTOCOL_VERSION
    isolation: list[str] = field(default_factory=list)  # the per-program mechanisms in force


@dataclass
class Started(_Message):
    """The program of request `id` runs in its own process: the host may now send the seal."""

    kind: ClassVar[str] = "started"
    id: str


@dataclass
class Result(_Message):
    """The outcome of a suite on one program."""

    kind: ClassVar[str] = "result"
    id: str | None = field(metadata=_NONE_WHEN_ABSENT)
    outcome: str
    reason: str | None = None
    message: str = ""
    line: int | None = None
    tests: list[TestEntry] = field(default_factory=list)
    duration_ms: float = 0.0
    secret: str = ""
    phases: dict[str, float] = field(default_factory=dict)  # ms per phase: fork, setup, run, report...

    def _validate_nested(self) -> None:
        if self.outcome not in ("pass", "fail", "error"):
            raise ProtocolError(f"result with outcome {self.outcome!r:.40}")
        self.tests = [t if isinstance(t, TestEntry) else TestEntry.from_dict(t) for t in self.tests]


def error_result(
    request_id: str | None, reason: str, message: str, tests: list[TestEntry] | None = None, line: int | None = None
) -> Result:
    """An `error` outcome: the program could not be judged, for `reason`."""
    return Result(id=request_id, outcome="error", reason=reason, message=message, line=line, tests=list(tests or []))


@dataclass
class TestStart(_Message):
    """Child -> runner: a test begins (so a run that never ends still names the test it was in)."""

    __test__ = False  # not a pytest test class, whatever its name
    kind: ClassVar[str] = "start"
    name: str
    def_line: int | None = None


@dataclass
class TestDone(_Message):
    """Child -> runner: a test finished."""

    __test__ = False  # not a pytest test class, whatever its name
    kind: ClassVar[str] = "done"
    test: TestEntry

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "test": self.test.to_dict()}

    def _validate_nested(self) -> None:
        if not isinstance(self.test, TestEntry):
            self.test = TestEntry.from_dict(self.test)


@dataclass
class CollectError(_Message):
    kind: ClassVar[str] = "collect-error"
    line: int | None = field(metadata=_NONE_WHEN_ABSENT)
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = _plain(self)
        return plain


@dataclass
class ChildReport(_Message):
    """Child -> runner: pytest's session completed (or broke off) with these tests."""

    kind: ClassVar[str] = "report"
    exit_code: int = -1
    finished: bool = False
    interrupted: str | None = None
    tests: list[TestEntry] = field(default_factory=list)
    collect_errors: list[CollectError] = field(default_factory=list)
    collected: int = 0
    duration_ms: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    # Tree-relative source files the program imported without probes: a hint of which files the
    # runner compiles before the next program (`_prism_programcode`), never code itself.
    imported: list[str] = field(default_factory=list)
    # Standard-library modules it imported that pytest does not: a hint of what the runner imports
    # once for the next programs (`_prism_preload`), checked there against its own list.
    stdlib: list[str] = field(default_factory=list)

    def _validate_nested(self) -> None:
        self.tests = [t if isinstance(t, TestEntry) else TestEntry.from_dict(t) for t in self.tests]
        self.collect_errors = [
            e if isinstance(e, CollectError) else CollectError.from_dict(e) for e in self.collect_errors
        ]


@dataclass
class Fatal(_Message):
    """Child -> runner: the runner's own code failed in the child before pytest could report."""

    kind: ClassVar[str] = "fatal"
    message: str


@dataclass
class ProbeRequest(_Message):
    """Call an entry point (`module:function`) of one program on a batch of inputs (witness search).
    `calls` are the Python literals of argument tuples, e.g. `"([1, 2],)"`."""

    kind: ClassVar[str] = "probe"
    id: str
    tree: str
    entry: str
    calls: list[str]
    call_timeout_s: float = 1.0
    timeout_s: float = 10
    memory_mb: int = 1024
    output_limit: int = 16 << 20
    pids_max: int = 0
    repr_limit: int = 2000
    pythonpath: list[str] = field(default_factory=list)
    focus: list[str] = field(default_factory=list)  # methods whose protocol ops go first (those changed)


@dataclass
class ProbeResult(_Message):
    """What one program did on each call of a `ProbeRequest` (see `_prism_probe`)."""

    kind: ClassVar[str] = "probe-result"
    id: str | None = field(metadata=_NONE_WHEN_ABSENT)
    outcome: str
    reason: str | None = None
    message: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: float = 0.0
    secret: str = ""


# Each message's wire fields, derived once from its dataclass fields: a field is declared once.
for _cls in _Message.__subclasses__():
    _cls._wire = _wire_fields(_cls)


REQUEST_KINDS: dict[str, type[_Message]] = {m.kind: m for m in (RunRequest, ProbeRequest, Seal)}
RUNNER_KINDS: dict[str, type[_Message]] = {m.kind: m for m in (Ready, Started, Result, ProbeResult)}
CHILD_KINDS: dict[str, type[_Message]] = {m.kind: m for m in (TestStart, TestDone, ChildReport, Fatal)}


def decode(line: bytes | str, kinds: dict[str, type[_Message]]) -> Any:
    """The message on `line`, one of `kinds`; raises `ProtocolError` naming what is wrong."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not JSON ({exc.__class__.__name__}): {_preview(line)}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"not a JSON object: {_preview(line)}")
    kind = data.get("kind")
    cls = kinds.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(f"unknown message kind {kind!r:.40}: {_preview(line)}")
    return cls.from_dict(data)


def _preview(line: bytes | str, limit: int = 120) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return text + ("…" if len(line) > limit else "")

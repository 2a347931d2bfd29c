"""The runner protocol (`_prism_protocol`): every message kind round-trips, and a runner that
sends anything but the answer it owes is replaced, its request an `error` naming what it sent."""

from __future__ import annotations

import dataclasses
import sys
import textwrap

import pytest

from prism_lsp.engine.pool import WARM, RunnerPool
from prism_lsp.runner import _prism_protocol as protocol
from prism_lsp.runner._prism_protocol import (
    Assertion,
    ChildReport,
    CollectError,
    Fatal,
    ProbeRequest,
    ProbeResult,
    ProtocolError,
    Ready,
    Result,
    RunRequest,
    Seal,
    Started,
    TestDone,
    TestEntry,
    TestStart,
)
from prism_lsp.sandbox.base import popen_runner

ENTRY = TestEntry(
    name="test_a[1]",
    outcome="fail",
    line=4,
    def_line=3,
    message="assert 1 == 2",
    reason=None,
    reached_change=True,
    assertions=[Assertion(4, "fail", "assert 1 == 2")],
    duration_ms=1.5,
)
MESSAGES = [
    RunRequest(
        id="9f2c",
        tree="/trees/x/tree",
        suite_rel="tests/test_a.py",
        suite_text="def test_a(): pass\n",
        changed={"a.py": [1, 2]},
        timeout_s=2.5,
        memory_mb=512,
        tests=["test_a"],
        command=None,
    ),
    Seal(id="9f2c", secret="s3cret"),
    Ready(python="3.11.7", pytest="8.3.0", pid=7, isolation=["pid-namespace"]),
    Started(id="9f2c"),
    Result(id="9f2c", outcome="fail", tests=[ENTRY], duration_ms=3.0, secret="s3cret", phases={"run": 1.0}),
    TestStart(name="test_a[1]", def_line=3),
    TestDone(test=ENTRY),
    ChildReport(
        exit_code=1,
        finished=True,
        tests=[ENTRY],
        collect_errors=[CollectError(2, "SyntaxError")],
        collected=1,
        duration_ms=2.0,
    ),
    Fatal(message="boom"),
    ProbeRequest(
        id="probe-3",
        tree="/trees/x/tree",
        entry="solution:f",
        calls=["([1, 2],)", "(0,)"],
        call_timeout_s=0.5,
        pythonpath=["src"],
    ),
    ProbeResult(
        id="probe-3",
        outcome="pass",
        calls=[{"value": "3", "type": "int", "exception": None, "mutated": False, "error": None}],
        secret="s3cret",
    ),
]
ALL_KINDS = {**protocol.REQUEST_KINDS, **protocol.RUNNER_KINDS, **protocol.CHILD_KINDS}


def test_every_message_kind_is_covered_here():
    assert {m.kind for m in MESSAGES} == set(ALL_KINDS)


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.kind)
def test_every_message_round_trips(message):
    assert protocol.decode(message.to_json(), ALL_KINDS) == message


@pytest.mark.parametrize(
    "line,named",
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"kind": "teleport", "id": "1"}', "unknown message kind 'teleport'"),
        ('{"kind": "result", "id": "1"}', "without `outcome`"),
        ('{"kind": "result", "id": "1", "outcome": "maybe"}', "outcome 'maybe'"),
        ('{"kind": "result", "id": "1", "outcome": "pass", "line": true}', "bad `line`"),
        ('{"kind": "result", "id": "1", "outcome": "pass", "tests": [{"outcome": "pass"}]}', "without `name`"),
    ],
)
def test_malformed_messages_are_refused_with_a_reason(line, named):
    with pytest.raises(ProtocolError, match=named.replace("(", r"\(").replace("[", r"\[")):
        protocol.decode(line, ALL_KINDS)


class ScriptBackend:
    """A real backend whose 'runner' is a small Python script: a runner gone wrong, as a hostile
    program that reached the runner's output would make it look to the host."""

    name = "script"
    warning = None

    def __init__(self, script: str):
        self.script = textwrap.dedent(script)
        self.spawned = 0

    def spawn(self, python, limits):
        self.spawned += 1
        return popen_runner([sys.executable, "-c", self.script], None)

    def close(self):
        pass


READY = '{"kind": "ready", "python": "3", "pytest": "8", "pid": 1}'


def _run(script: str) -> tuple[Result, ScriptBackend]:
    backend = ScriptBackend(script)
    with RunnerPool(backend, workers=1) as pool:
        request = RunRequest(id="abc", tree="/nowhere", suite_rel="t.py", suite_text="", timeout_s=5)
        return pool.submit(request).result(timeout=60), backend


STARTED = '{"kind": "started", "id": "abc"}'


@pytest.mark.parametrize(
    "answers,named",
    [
        (["this is not json"], "malformed message (not JSON"),
        (['{"kind": "teleport"}'], "unknown message kind 'teleport'"),
        ([READY], "unsolicited 'ready' message"),
        (['{"kind": "result", "id": "abc", "outcome": "pass"}'], "unsolicited 'result' message"),
        (['{"kind": "started", "id": "other"}'], "started request 'other'"),
        ([STARTED, '{"kind": "result", "id": "other", "outcome": "pass"}'], "answered request 'other'"),
        # A forged answer: right request, right form, but without the secret only the runner learnt.
        (
            [STARTED, '{"kind": "result", "id": "abc", "outcome": "pass", "secret": "guess"}'],
            "lacks this request's secret",
        ),
    ],
)
def test_a_runner_that_says_anything_else_is_an_error_naming_it(answers, named):
    result, _ = _run(f"""
        import sys
        print({READY!r}, flush=True)
        sys.stdin.readline()
        for answer in {answers!r}:
            print(answer, flush=True)
            sys.stdin.readline()
        sys.stdin.read()
    """)
    assert result.outcome == "error" and result.reason == "sandbox"
    assert named in result.message and "replaced" in result.message


def test_the_host_accepts_an_answer_stamped_with_the_seal_it_sent():
    result, _ = _run(f"""
        import json, sys
        print({READY!r}, flush=True)
        sys.stdin.readline()
        print({STARTED!r}, flush=True)
        seal = json.loads(sys.stdin.readline())
        print(json.dumps({{"kind": "result", "id": "abc", "outcome": "fail", "secret": seal["secret"]}}), flush=True)
        sys.stdin.read()
    """)
    assert result.outcome == "fail"


def test_an_endless_line_from_a_runner_is_an_error_and_memory_stays_bounded():
    result, _ = _run(f"""
        import os, sys
        print({READY!r}, flush=True)
        sys.stdin.readline()
        block = b"x" * (1 << 20)
        while True:
            os.write(1, block)
    """)
    assert result.outcome == "error" and "longer than" in result.message


def test_a_runner_that_never_gets_ready_is_a_sandbox_error():
    backend = ScriptBackend("print('hello', flush=True)")
    with RunnerPool(backend, workers=1) as pool:
        info = pool.submit(WARM).result(timeout=60)
    assert isinstance(info, Result) and info.outcome == "error" and "did not start" in info.message


# The wire contract of every message, written out (not read from the classes): the fields a message
# must carry, with a value they may take, and the default each other field gets when left out.
REQUIRED_AND_DEFAULTS = {
    RunRequest: (
        {"id": "r", "tree": "/t", "suite_rel": "t.py", "suite_text": ""},
        {
            "changed": {},
            "timeout_s": 10,
            "memory_mb": 1024,
            "output_limit": 16 << 20,
            "pids_max": 0,
            "tests": None,
            "command": None,
            "config_rel": None,
            "config_text": None,
            "pythonpath": [],
            "entry": [],
            "suite_code_tag": None,
            "suite_code": None,
            "marks": {},
        },
    ),
    ProbeRequest: (
        {"id": "p", "tree": "/t", "entry": "m:f", "calls": []},
        {
            "call_timeout_s": 1.0,
            "timeout_s": 10,
            "memory_mb": 1024,
            "output_limit": 16 << 20,
            "pids_max": 0,
            "repr_limit": 2000,
            "pythonpath": [],
            "focus": [],
        },
    ),
    Seal: ({"id": "r", "secret": "s"}, {}),
    Ready: ({"python": "3", "pytest": "8", "pid": 1}, {"protocol": protocol.PROTOCOL_VERSION, "isolation": []}),
    Started: ({"id": "r"}, {}),
    Result: (
        {"outcome": "pass"},
        {
            "id": None,
            "reason": None,
            "message": "",
            "line": None,
            "tests": [],
            "duration_ms": 0.0,
            "secret": "",
            "phases": {},
        },
    ),
    ProbeResult: (
        {"outcome": "pass"},
        {"id": None, "reason": None, "message": "", "calls": [], "duration_ms": 0.0, "secret": ""},
    ),
    TestStart: ({"name": "t"}, {"def_line": None}),
    TestDone: ({"test": {"name": "t", "outcome": "pass"}}, {}),
    ChildReport: (
        {},
        {
            "exit_code": -1,
            "finished": False,
            "interrupted": None,
            "tests": [],
            "collect_errors": [],
            "collected": 0,
            "duration_ms": 0.0,
            "phases": {},
            "imported": [],
            "stdlib": [],
        },
    ),
    Fatal: ({"message": "boom"}, {}),
    TestEntry: (
        {"name": "t", "outcome": "pass"},
        {
            "line": None,
            "def_line": None,
            "message": "",
            "reason": None,
            "reached_change": None,
            "assertions": [],
            "duration_ms": 0.0,
            "covered": {},
        },
    ),
    Assertion: ({"outcome": "pass"}, {"line": None, "explanation": ""}),
    CollectError: ({}, {"line": None, "message": ""}),
}


def test_the_wire_contract_names_every_field_of_every_message():
    assert set(REQUIRED_AND_DEFAULTS) >= set(ALL_KINDS.values())
    for cls, (required, defaults) in REQUIRED_AND_DEFAULTS.items():
        assert {f.name for f in dataclasses.fields(cls)} == set(required) | set(defaults), cls.__name__


REQUIRED_FIELDS = [(cls, name) for cls, (required, _) in REQUIRED_AND_DEFAULTS.items() for name in required]


@pytest.mark.parametrize("cls,name", REQUIRED_FIELDS, ids=[f"{c.__name__}.{n}" for c, n in REQUIRED_FIELDS])
def test_a_message_without_a_required_field_is_refused_naming_it(cls, name):
    required, _ = REQUIRED_AND_DEFAULTS[cls]
    cls.from_dict(required)  # complete, it is read
    with pytest.raises(ProtocolError, match=f"{cls.kind} message without `{name}`"):
        cls.from_dict({k: v for k, v in required.items() if k != name})


@pytest.mark.parametrize("cls", list(REQUIRED_AND_DEFAULTS), ids=lambda c: c.__name__)
def test_a_message_without_its_optional_fields_gets_their_defaults(cls):
    required, defaults = REQUIRED_AND_DEFAULTS[cls]
    message = cls.from_dict(required)
    assert {name: getattr(message, name) for name in defaults} == defaults

"""What a candidate sees of the host inside bubblewrap: an allowlist, never the whole filesystem.

A read-only mount does not stop connect() on a pathname Unix socket, so any socket the
sandbox can see (the Docker daemon's, a desktop bus, a test's own) would be a way out.
These run real bwrap and real candidates; nothing is mocked.
"""

import json
import os
import socket
import sys
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from prism_lsp.engine.session import RunOptions
from prism_lsp.model.run import Suite
from prism_lsp.sandbox.bubblewrap import probe
from prism_lsp.tasks import load_task
from tests.conftest import write_task
from tests.sandbox.venvs import fake_venv

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"bubblewrap unusable here: {probe()}")

SUITE = Suite("tests/test_f.py", "from solution import f\n\ndef test_f():\n    assert f() == 2\n")


def run_candidate(tmp_path, engine, body: str, *, extra_task: str = ""):
    """Run `def f():` + body as an invalid candidate; its result (the report carries what f raised)."""
    root = write_task(
        tmp_path / "task",
        extra_task="timeout_s = 10\n" + extra_task,
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {"id": "probe", "label": "invalid", "files": {"solution.py": "import os, socket\n\ndef f():\n" + body}},
        ],
    )
    run = engine.run(load_task(root), SUITE, RunOptions(sandbox="bubblewrap"))
    results = {c.id: r for c, r in run.results}
    assert results["reference"].outcome == "pass", results["reference"]
    return results["probe"]


def reported(result) -> str:
    """What the candidate's f() raised (the message of its one failing test)."""
    assert result.outcome == "fail", result
    return result.tests[0].message


class UnixListener:
    """A listening AF_UNIX socket on the host that records every connection it accepts."""

    def __init__(self, path: Path):
        self.path = path
        self.received: list[bytes] = []
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(str(path))
        os.chmod(path, 0o777)
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.received.append(conn.recv(100) or b"<connected>")
            except OSError:
                self.received.append(b"<connected>")
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
        self.path.unlink(missing_ok=True)


def socket_dirs() -> list[Path]:
    """Host folders outside the allowlist where anyone may leave a socket: /var/tmp, and /run when writable."""
    dirs = [Path("/var/tmp")]
    if os.access("/run", os.W_OK):
        dirs.append(Path("/run"))
    return [d for d in dirs if d.is_dir() and os.access(d, os.W_OK)]


def test_host_unix_sockets_outside_the_allowlist_are_unreachable(tmp_path, engine):
    listeners = []
    for folder in socket_dirs():
        # A folder of its own per run, short enough for AF_UNIX's 108-byte path limit.
        own = Path(tempfile.mkdtemp(prefix="prism-sock-", dir=folder))
        listeners.append(UnixListener(own / "s"))
    targets = [str(lst.path) for lst in listeners] + ["/var/run/docker.sock", "/run/docker.sock"]
    body = (
        f"    out = []\n    for path in {targets!r}:\n"
        "        try:\n"
        "            s = socket.socket(socket.AF_UNIX)\n            s.settimeout(1)\n"
        "            s.connect(path)\n            s.sendall(b'leak')\n"
        "            out.append(path + ' CONNECTED')\n"
        "        except FileNotFoundError:\n            out.append(path + ' missing')\n"
        "        except OSError as exc:\n            out.append(path + ' ' + type(exc).__name__)\n"
        "    raise AssertionError(' | '.join(out))\n"
    )
    try:
        message = reported(run_candidate(tmp_path, engine, body))
    finally:
        for lst in listeners:
            lst.close()
            lst.path.parent.rmdir()
    assert [lst.received for lst in listeners] == [[] for _ in listeners]
    for path in targets:
        assert f"{path} missing" in message, message  # not merely refused: the path is not there at all


HIDDEN = ["/home", "/root", "/var", "/run", "/srv", "/mnt", "/media", "/opt"]


def needed_on_purpose() -> list[Path]:
    """Host paths the sandbox binds back on purpose: the interpreter, its packages, the runner, $HOME."""
    import site

    paths = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        os.path.realpath(sys.executable),
        *site.getsitepackages(),
        site.getusersitepackages(),
        str(Path(__file__).resolve().parents[2]),
        os.path.expanduser("~"),
        os.environ.get("PRISM_CACHE_DIR", ""),
    ]
    return [Path(os.path.realpath(p)) for p in paths if p]


def test_host_folders_outside_the_allowlist_are_absent_or_empty(tmp_path, engine):
    body = (
        f"    import json\n    seen = {{}}\n    for folder in {HIDDEN!r}:\n"
        "        try:\n            seen[folder] = sorted(os.listdir(folder))\n"
        "        except FileNotFoundError:\n            seen[folder] = None\n"
        "    raise AssertionError('LISTING ' + json.dumps(seen))\n"
    )
    message = reported(run_candidate(tmp_path, engine, body))
    seen = json.loads(message.split("LISTING ", 1)[1].split("\n", 1)[0])
    for folder in HIDDEN:
        # Only the first step towards a path bound on purpose (a pyenv Python in /root) may show.
        allowed = {
            p.relative_to(folder).parts[0]
            for p in needed_on_purpose()
            if p.is_relative_to(folder) and p != Path(folder)
        }
        assert seen[folder] is None or set(seen[folder]) <= allowed, (folder, seen[folder], allowed)


def test_home_is_an_empty_tmpfs_but_for_what_the_runner_needs(tmp_path, engine):
    marker = Path.home() / f"prism-secret-{uuid.uuid4().hex}"
    marker.write_text("secret")
    try:
        body = f"    raise AssertionError('EXISTS ' + str(os.path.exists({str(marker)!r})))\n"
        message = reported(run_candidate(tmp_path, engine, body))
    finally:
        marker.unlink()
    assert "EXISTS False" in message, message


def test_a_task_python_outside_the_allowlist_still_runs(tmp_path, engine):
    """A task whose `python` is a venv under a hidden folder (here /tmp, like /home or /opt) still runs."""
    import venv

    env = tmp_path / "venv"
    venv.EnvBuilder(symlinks=True).create(env)
    # pytest comes from this interpreter's packages (always bound); the venv itself is not.
    import site

    ours = site.getsitepackages()[0]
    (next(env.glob("lib/python*/site-packages")) / "prism_test.pth").write_text(ours + "\n")
    python = env / "bin" / "python"
    body = "    import sys\n    raise AssertionError('PREFIX ' + sys.prefix)\n"
    message = reported(run_candidate(tmp_path, engine, body, extra_task=f'python = "{python}"\n'))
    assert f"PREFIX {env}" in message, message


def run_cli(tmp_path, python: Path, capsys) -> tuple[int, str, str]:
    from prism_lsp.cli import prism_main

    root = write_task(
        tmp_path / "task",
        extra_task=f'timeout_s = 10\npython = "{python}"\n',
        initial={"solution.py": "def f():\n    return 1\n"},
        candidates=[
            {"id": "reference", "reference": True, "files": {"solution.py": "def f():\n    return 2\n"}},
            {
                "id": "probe",
                "label": "invalid",
                "files": {
                    "solution.py": "import os\n\ndef f():\n    raise AssertionError(str(os.path.exists('/run/docker.sock')))\n"
                },
            },
        ],
    )
    (root / "tests").mkdir()
    (root / "tests" / "test_f.py").write_text(SUITE.text)
    code = prism_main(["run", str(root), str(root / "tests" / "test_f.py"), "--json", "--sandbox", "bubblewrap"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_task_venv_whose_home_is_run_is_refused_naming_the_manifest_key(tmp_path, capsys):
    """`home = /run` in a task venv's pyvenv.cfg once put /run (the Docker socket) inside the sandbox."""
    code, out, err = run_cli(tmp_path, fake_venv(tmp_path / "venv", "/run"), capsys)
    assert code == 2 and out == "", (code, out, err)
    assert "prism.toml: task.python:" in err and "/run" in err and "Traceback" not in err, err


def test_a_task_interpreter_whose_installation_holds_a_socket_is_refused(tmp_path, capsys):
    """A prefix that looks like a Python installation but holds a socket (host state) is not shown."""
    prefix = tmp_path / "prefix"
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    python = fake_venv(tmp_path / "venv", str(prefix / "bin"))
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    listener = UnixListener(Path(tempfile.mkdtemp(prefix="s", dir=prefix)) / "s")
    try:
        code, out, err = run_cli(tmp_path, python, capsys)
    finally:
        listener.close()
    assert listener.received == []
    assert code == 2 and "task.python" in err and "socket" in err, (code, err)


@pytest.mark.parametrize("home", ["/", "/tmp", "/var", "/proc/self", "~"])
def test_a_task_venv_naming_host_state_as_home_is_refused(tmp_path, capsys, home):
    home = os.path.expanduser(home)
    code, out, err = run_cli(tmp_path, fake_venv(tmp_path / "venv", home), capsys)
    assert code == 2 and "task.python" in err, (home, code, out, err)

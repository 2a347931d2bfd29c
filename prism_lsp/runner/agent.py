"""The runner: a warm pytest process that lives inside the sandbox; its main loop.

Self-contained on purpose (stdlib + pytest only, with its `_prism_*` sibling
modules): the sandbox backends start it by file path, and the Docker backend
mounts this folder into containers whose Python has nothing of Prism.

It speaks the protocol of `_prism_protocol` (JSON lines on stdin/stdout): one `ready`
at start-up, then one answer per request, dispatched on the request's `kind`
(`HANDLERS`: adding a kind is one entry). Each program runs in a forked child
(`_prism_supervisor`, `_prism_child`): pytest was imported once, here.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile

os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True

from importlib import import_module  # noqa: E402

import _prism_isolation as isolation  # noqa: E402
import _prism_preload as preload  # noqa: E402
import _pytest.assertion.rewrite  # noqa: E402,F401
import _pytest.config  # noqa: E402,F401
import _pytest.python  # noqa: E402,F401
import pytest  # noqa: E402  (imported once, before any fork: that is the point)
from _prism_child import PLUGINS_OFF, warm_up  # noqa: E402
from _prism_cleanup import CleanupFailed, SharedFolders  # noqa: E402
from _prism_collector import short  # noqa: E402
from _prism_probe import run_probe  # noqa: E402  (calls of an entry point, for witness search)
from _prism_protocol import ProbeRequest, ProtocolError, Ready, RunRequest, Seal, Started, decode, error_result  # noqa: E402
from _prism_supervisor import Settings, run_one  # noqa: E402

_HERE = os.path.dirname(os.path.realpath(__file__))
# Our own folder must not stay importable for the programs we run.
sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != _HERE]

for _name in _pytest.config.default_plugins:
    # Import every built-in plugin module now so that each forked run finds it loaded; not the ones
    # every run switches off (`doctest` and `junitxml` alone cost a runner's start 15 ms).
    if _name in PLUGINS_OFF:
        continue
    try:
        import_module(f"_pytest.{_name}")
    except ImportError:
        pass

# Standard-library modules programs commonly import that pytest does not: imported once, after the
# warm-up, so a program's `import` finds them loaded (measured: `fractions` alone cost a program
# 1.4 ms, most of it compiling its regular expression). Each child gets its own copy (fork), so
# nothing a program changes in them reaches another; `_prism_preload` says what keeps outcomes.
COMMON_STDLIB = [
    "fractions",
    "decimal",
    "statistics",
    "string",
    "textwrap",
    "heapq",
    "bisect",
    "datetime",
    "unicodedata",
    "tokenize",
]

_PR_SET_CHILD_SUBREAPER = 36

# Request kind -> (message class, handler(request, settings, started) -> Result). Adding a kind
# is one line here (its message class lives in `_prism_protocol`).
HANDLERS = {RunRequest.kind: (RunRequest, run_one), ProbeRequest.kind: (ProbeRequest, run_probe)}


def _settings(argv: list[str]) -> Settings:
    # --scratch DIR, --trees HOST=HERE, --uid-private 1, --private-tmp 1, --hide DIR[:DIR...]
    opts = dict(zip(argv[1::2], argv[2::2]))
    settings = Settings(
        scratch=opts.get("--scratch") or tempfile.gettempdir(),
        uid_private=opts.get("--uid-private") == "1",
        private_tmp=opts.get("--private-tmp") == "1",
    )
    if "--scratch" in opts:
        scratch = settings.scratch
        # Private to this runner: other runners of a shared sandbox may run beside it under other uids.
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        st = os.lstat(scratch)
        if not os.path.isdir(scratch) or os.path.islink(scratch) or st.st_uid != os.getuid():
            sys.exit(f"prism runner: scratch folder {scratch} exists and is not ours; refusing it")
        os.chmod(scratch, 0o700)
        # The warm-up's tmp_path too: a shared /tmp/pytest-of-<user> belongs to whichever runner made it first.
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = None
    if "--trees" in opts:
        host, _, here = opts["--trees"].partition("=")
        settings.trees_map = (host.rstrip("/"), here.rstrip("/"))
    if opts.get("--hide"):
        settings.hide = [p for p in opts["--hide"].split(":") if p]
    return settings


def _say(out, message) -> None:
    out.write(message.to_json() + "\n")
    out.flush()


class _Channel:
    """The runner's side of the protocol on stdin/stdout."""

    def __init__(self):
        self.out = sys.stdout
        self.inp = sys.stdin

    def say(self, message) -> None:
        _say(self.out, message)

    def started(self, request_id: str) -> str:
        """Tell the host the program runs; read back the seal (the secret of this request)."""
        self.say(Started(request_id))
        line = self.inp.readline()
        if not line:
            sys.exit(0)  # the host is gone
        seal = decode(line, {Seal.kind: Seal})
        if seal.id != request_id:
            raise ProtocolError(f"seal for request {seal.id!r:.40} while running {request_id!r}")
        return seal.secret


def main() -> None:
    settings = _settings(sys.argv)
    isolation.harden_runner()
    if isolation.namespaces_available():
        # From here on this process is pid 1 of its own namespaces; its parent waits outside.
        settings.hidden = isolation.enter_runner_namespaces(settings.hide)
        settings.namespaces = True
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # no libc or no prctl: the sandbox's own init reaps orphans then
        pass
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    warm_up(settings.scratch)
    preload.mark_baseline()
    preload.preload(COMMON_STDLIB)
    if settings.private_tmp:
        # Only when the sandbox gave this runner a private /tmp, never on the host's own.
        settings.shared = SharedFolders(settings.scratch)
    # Everything imported so far is shared with every forked run: keep the collector off it. No
    # collection first: after the warm-up it found 3 objects and took 8 ms of every runner's start.
    import gc

    gc.freeze()
    channel = _Channel()
    # "seccomp" only where this architecture has a filter table: the host's guarantees read this.
    mechanisms = [
        "non-dumpable-runner",
        "fds-closed",
        "no-new-privs",
        *(["seccomp"] if isolation.seccomp_installed() else []),
    ]
    if settings.namespaces:
        mechanisms += ["pid-namespace", "mount-namespace", "hidepid", "ipc-namespace-per-program", "no-capabilities"]
    else:
        mechanisms += ["no-ipc"]
    channel.say(Ready(python=sys.version.split()[0], pytest=pytest.__version__, pid=os.getpid(), isolation=mechanisms))
    kinds = {kind: cls for kind, (cls, _) in HANDLERS.items()}
    while True:
        line = channel.inp.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            req = decode(line, kinds)
        except ProtocolError as exc:
            channel.say(error_result(None, "protocol", f"bad request: {exc}"))
            continue
        handler = HANDLERS[req.kind][1]
        try:
            result = handler(req, settings, channel.started)
        except CleanupFailed as exc:
            # What the program left stays: no later program may run in this runner. Answer, then end.
            channel.say(exc.result or error_result(req.id, "sandbox", short(f"clean-up failed: {exc}")))
            sys.exit(3)
        except ProtocolError as exc:
            result = error_result(req.id, "protocol", short(f"bad seal: {exc}"))
        except Exception as exc:  # the runner must answer every request
            result = error_result(getattr(req, "id", None), "runner", short(f"runner failure: {exc!r}"))
        channel.say(result)
        if preload.preload_wanted():
            # what the children reported, while the host reads the answer; shared like the rest
            gc.freeze()


if __name__ == "__main__":
    main()

"""Per-test results on disk, under Prism's cache folder (`<cache>/results/`), shared by every process.

One file ("bundle") per (program tree digest, run context): the results of that suite's tests on
that program, each under its test key. A bundle is data that could come from anywhere that can
write the folder (a CI cache restored from elsewhere, another process), so it is read back as a
runner's answer is: each record is a runner `result` message, decoded by the runner protocol's
own parser and turned into results by `engine.results.program_from_runner` (same caps, same
plain-text rule). On top of that a bundle must carry the HMAC of its contents under this folder's
key (a forged or edited entry is not Prism's), name the bundle it is, stay under `MAX_ENTRY_BYTES`,
be a regular file of this user (never a symlink). Anything else is a miss: the tests run again,
a bad entry is never a verdict. Writes are atomic (a temporary file renamed into place); the
folder is 0700, bounded in total (`MAX_TOTAL_BYTES`, `MAX_BUNDLES`: least recently used out).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import os
import secrets
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

from prism_lsp.engine.results import program_from_runner
from prism_lsp.model.outcome import TestResult
from prism_lsp.runner._prism_protocol import (
    MAX_LINE,
    RUNNER_KINDS,
    Assertion,
    ProtocolError,
    Result,
    TestEntry,
    decode,
)

log = logging.getLogger(__name__)

FORMAT = "prism-results-v1"
MAX_ENTRY_BYTES = 8 << 20  # one program's results of one suite (a 600-test module is ~1 MB)
MAX_TOTAL_BYTES = 256 << 20
MAX_BUNDLES = 20_000
MAX_RECORDS = 5_000  # test keys per bundle
_KEY_FILE = "key"
_SUFFIX = ".results"


def _entry(t: TestResult) -> TestEntry:
    return TestEntry(
        name=t.name,
        outcome=t.outcome,
        line=t.line,
        def_line=t.def_line,
        message=t.message,
        reason=t.reason,
        reached_change=t.reached_change,
        assertions=[Assertion(a.line, a.outcome, a.explanation) for a in t.assertions],
        duration_ms=t.duration_ms,
        covered={rel: list(lines) for rel, lines in t.covered},
    )


Records = dict[str, tuple[int, tuple[TestResult, ...]]]  # test key -> (its first line, its results)


@functools.lru_cache(maxsize=16_384)  # records of several programs of a large module
def _record(key: str, start: int, results: tuple[TestResult, ...]) -> str:
    # The suite's lines as they were when stored, and where the test started (`line`). Cached: every
    # run rewrites a program's whole bundle, and a one-test edit of a 589-test module re-encoded
    # 4,123 unchanged records (0.5 s); the results are frozen values, the key is their content.
    return Result(id=key, outcome="pass", line=start, tests=[_entry(t) for t in results]).to_json()


def _parse(line: str) -> tuple[str, int, tuple[TestResult, ...]] | None:
    """(test key, its first line, results) of one record, validated as a runner's `result` message;
    None if it is not one."""
    if len(line) > MAX_LINE:
        return None
    try:
        message = decode(line, RUNNER_KINDS)  # as the host reads a runner's answer
    except (ProtocolError, RecursionError):
        return None
    if not isinstance(message, Result) or not isinstance(message.id, str) or not message.tests:
        return None
    converted = program_from_runner(message)
    if converted.line is None:
        return None
    results = converted.tests
    # Only definite outcomes are kept on disk (`DiskStore.put`): anything else is not an entry of ours.
    if len(results) != len(message.tests) or any(t.outcome not in ("pass", "fail") for t in results):
        return None
    return message.id, converted.line, results


@dataclass
class StoreCounts:
    """What the store did in this process: bundles read, ignored (corrupt, forged, oversized...), written."""

    read: int = 0
    ignored: int = 0
    written: int = 0
    reasons: list[str] = field(default_factory=list)


class DiskStore:
    """Bundles of per-test results in one private folder; thread-safe; errors are misses, never raised."""

    def __init__(self, folder: Path, secret: bytes) -> None:
        self.folder = folder
        self._secret = secret
        self._lock = threading.Lock()
        self._total: int | None = None  # bytes on disk, counted at the first write
        self.counts = StoreCounts()

    @staticmethod
    def open(folder: Path) -> DiskStore | str:
        """The store in `folder` (made 0700), or why it cannot be used (a symlink, another owner...)."""
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.lstat(folder)
            if not stat.S_ISDIR(st.st_mode):
                return f"{folder} is not a folder"
            if st.st_uid != os.geteuid():
                return f"{folder} belongs to another user"
            if stat.S_IMODE(st.st_mode) != 0o700:
                os.chmod(folder, 0o700, follow_symlinks=False)
            return DiskStore(folder, _secret(folder))
        except (OSError, ValueError) as exc:
            return f"{folder}: {exc}"

    def _name(self, digest: str, context: str) -> str:
        return hashlib.sha256(f"{FORMAT}\0{digest}\0{context}".encode()).hexdigest()

    def _mac(self, name: str, body: bytes) -> str:
        return hmac.new(self._secret, name.encode() + b"\n" + body, hashlib.sha256).hexdigest()

    def _ignore(self, name: str, why: str) -> None:
        with self._lock:
            self.counts.ignored += 1
            if len(self.counts.reasons) < 20:
                self.counts.reasons.append(f"{name[:12]}: {why}")
        log.info("result cache: entry %s ignored (%s); its tests run again", name[:12], why)

    def stamp(self, digest: str, context: str) -> tuple[int, int] | None:
        """Which file the bundle of (digest, context) is now, (inode, size), or None when there is none:
        every write replaces the file, so an equal stamp is a bundle already read (`get` touches it)."""
        try:
            st = os.lstat(self.folder / (self._name(digest, context) + _SUFFIX))
        except OSError:
            return None
        return st.st_ino, st.st_size

    def get(self, digest: str, context: str) -> Records:
        """Test key -> (first line, results) of the bundle of (digest, context); {} when there is none or it is not valid."""
        name = self._name(digest, context)
        path = self.folder / (name + _SUFFIX)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return {}
        except OSError as exc:  # a symlink (ELOOP), a FIFO we may not read...
            self._ignore(name, f"cannot open: {exc.strerror or exc}")
            return {}
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                self._ignore(name, "not a regular file of this user")
                return {}
            if st.st_size > MAX_ENTRY_BYTES:
                self._ignore(name, f"{st.st_size} bytes, over {MAX_ENTRY_BYTES}")
                return {}
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(MAX_ENTRY_BYTES + 1)
        except OSError as exc:
            self._ignore(name, f"cannot read: {exc.strerror or exc}")
            return {}
        finally:
            os.close(fd)
        found = self._verify(name, data)
        if found is None:
            return {}
        try:
            os.utime(path, follow_symlinks=False)  # recently used: evicted last
        except OSError:
            pass
        with self._lock:
            self.counts.read += 1
        return found

    def _verify(self, name: str, data: bytes) -> Records | None:
        if len(data) > MAX_ENTRY_BYTES:
            self._ignore(name, "grew past the size limit")
            return None
        mac, _, body = data.partition(b"\n")
        if not hmac.compare_digest(mac, self._mac(name, body).encode()):
            self._ignore(name, "not signed by this cache's key (forged, edited or truncated)")
            return None
        try:
            lines = body.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            self._ignore(name, "not UTF-8")
            return None
        if not lines or lines[0] != f"{FORMAT} {name}" or len(lines) > MAX_RECORDS + 1:
            self._ignore(name, "not this bundle")
            return None
        found: Records = {}
        for line in lines[1:]:
            record = _parse(line)
            if record is None:
                self._ignore(name, "a record that is not a valid runner result")
                return None
            found[record[0]] = record[1:]
        return found

    def put(self, digest: str, context: str, records: Records) -> None:
        """Write the bundle of (digest, context) (replacing it); records with other than pass/fail are left out."""
        kept = {k: v for k, v in records.items() if v[1] and all(t.outcome in ("pass", "fail") for t in v[1])}
        if not kept or len(kept) > MAX_RECORDS:
            return
        name = self._name(digest, context)
        body = "\n".join(
            [f"{FORMAT} {name}", *(_record(k, start, v) for k, (start, v) in sorted(kept.items()))]
        ).encode()
        data = self._mac(name, body).encode() + b"\n" + body
        if len(data) > MAX_ENTRY_BYTES:
            return
        tmp = self.folder / f".tmp-{secrets.token_hex(8)}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.folder / (name + _SUFFIX))
        except OSError as exc:
            log.info("result cache: cannot write %s: %r", name[:12], exc)
            tmp.unlink(missing_ok=True)
            return
        with self._lock:
            self.counts.written += 1
            if self._total is None:
                self._total = self._scan_total()
            else:
                self._total += len(data)
            over = self._total > MAX_TOTAL_BYTES
        if over:
            self.evict()

    def _bundles(self) -> list[tuple[float, int, Path]]:
        out = []
        with os.scandir(self.folder) as it:
            for i, e in enumerate(it):
                if i > 4 * MAX_BUNDLES:
                    break
                if e.name.endswith(_SUFFIX) or e.name.startswith(".tmp-"):
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    out.append((st.st_mtime, st.st_size, Path(e.path)))
        return out

    def _scan_total(self) -> int:
        bundles = self._bundles()
        if len(bundles) > MAX_BUNDLES:
            self._total = MAX_TOTAL_BYTES + 1  # evict() below trims the count too
        return sum(size for _, size, _ in bundles)

    def evict(self) -> None:
        """Remove the least recently used bundles until the folder is under 3/4 of its bounds."""
        bundles = sorted(self._bundles())
        total = sum(size for _, size, _ in bundles)
        count = len(bundles)
        for _, size, path in bundles:
            if total <= MAX_TOTAL_BYTES * 3 // 4 and count <= MAX_BUNDLES * 3 // 4:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            count -= 1
        with self._lock:
            self._total = total


def _secret(folder: Path) -> bytes:
    """This folder's HMAC key (32 random bytes, 0600), made on first use; ValueError if it is not ours."""
    path = folder / _KEY_FILE
    if not os.path.lexists(path):
        # Written whole, then linked into place: a process that races this one reads a whole key.
        tmp = folder / f".tmp-{secrets.token_hex(8)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(32))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) & 0o077:
            raise ValueError(f"{path} is not a private file of this user")
        secret = f.read(33)
    if len(secret) != 32:
        raise ValueError(f"{path} is not a key of {FORMAT}")
    return secret

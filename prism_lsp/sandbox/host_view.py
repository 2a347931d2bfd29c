"""What a bubblewrap sandbox sees of the host: an allowlist of folders, all read-only.

A read-only mount does not stop connect() on a pathname Unix socket, so every socket the
sandbox can see is a way out of it (the Docker daemon's in /run gives root on the host).
The sandbox therefore starts from an empty root and shows only what a Python runner needs:
the system folders (`SYSTEM_DIRS`) and the few paths `runner_paths` names. /run, /var, /home,
/srv, /mnt, /media, /opt and /root stay absent unless one of those paths lies under them,
and then only that path is shown.

Callers may rely on:
- `system_args()`: bwrap arguments mounting the system folders (merged-/usr links recreated
  as links), never anything else of the host;
- `resolve_python(python)`: the absolute path to start (a bare name looked up in the host's PATH,
  whose folders the sandbox may not show), or `python` unchanged when it is not found;
- `interpreter_view(python, keep_out)`: the folders and links that interpreter needs (no other host
  file); for an interpreter other than Prism's own (a task's `python`, untrusted) every folder
  passes `interpreter_rule` or `InterpreterRefused` is raised;
- `runner_paths(python, extra)`: real, existing, absolute host paths, never `/`, never one holding
  `extra` for a task's interpreter;
- `bind_args(paths, hidden, links)`: read-only binds and links for what is not already shown,
  emitted after the tmpfs of any hidden folder they lie under, so it stays hidden but for them.
"""

from __future__ import annotations

import os
import shutil
import site
import sys
from collections.abc import Sequence
from pathlib import Path

from prism_lsp.sandbox.base import AGENT
from prism_lsp.sandbox.interpreter_rule import check_folder, installation

# /etc holds no sockets on a normal system, and Python reads it (locale, time zone, certificates).
# The Nix and Guix stores are where the interpreter and its libraries live on those systems; their
# daemons' sockets are under /nix/var and /var/guix, which stay hidden.
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store", "/gnu/store")


def _shown(path: str) -> bool:
    return os.path.lexists(path) and (os.path.islink(path) or os.path.isdir(path))


def system_real_roots() -> list[Path]:
    return [Path(os.path.realpath(d)) for d in SYSTEM_DIRS if _shown(d)]


def system_args() -> list[str]:
    """Mount arguments showing the system folders read-only; links to folders shown anyway stay links."""
    real_dirs = [Path(os.path.realpath(d)) for d in SYSTEM_DIRS if _shown(d) and not os.path.islink(d)]
    args: list[str] = []
    for d in SYSTEM_DIRS:
        if not _shown(d):
            continue
        real = Path(os.path.realpath(d))
        if os.path.islink(d) and any(real.is_relative_to(r) for r in real_dirs):
            # Merged /usr (/bin -> usr/bin): the same link, not a second mount of the same folder.
            args += ["--symlink", os.readlink(d), d]
        elif real.is_dir():
            args += ["--ro-bind", str(real), d]
    return args


def _prefix(exe: Path) -> Path:
    """The installation folder of a real interpreter binary: `<prefix>` when it sits in
    `<prefix>/bin` next to a `<prefix>/lib/python*`, else only the folder it sits in (a copy in
    ~/bin must not show all of $HOME)."""
    folder = Path(os.path.realpath(exe.parent))
    if folder.name == "bin" and any((folder.parent / "lib").glob("python*")):
        return folder.parent
    return folder


def _real_dir(path: Path) -> Path:
    return Path(os.path.realpath(path.parent)) / path.name


def resolve_python(python: str) -> str:
    """`python` as an absolute path through real folders (the ones bound), its own name kept even
    when it is a link: a venv is known by the path of its own `bin/python`, not of what it links to."""
    found = shutil.which(python) if os.sep not in python else python
    return str(_real_dir(Path(os.path.abspath(found)))) if found else python


def trusted(python: str) -> bool:
    """Whether `python` is the interpreter Prism runs on (chosen by whoever started Prism)."""
    # The path as started, not the binary it links to: a venv linking to the same binary is another
    # interpreter (its own site-packages, its own pyvenv.cfg).
    return resolve_python(python) == resolve_python(sys.executable)


def interpreter_view(python: str, keep_out: Sequence[Path] = ()) -> tuple[list[Path], list[tuple[str, Path]]]:
    """What an interpreter needs shown: (folders, links). Folders: every venv on the way to the
    binary, the `home` its pyvenv.cfg names (a venv made with --copies) and the real binary's
    prefix. Links: (target, where) for each other link on the way (~/bin/python -> /usr/bin/python3),
    recreated as a link rather than showing the folder it sits in.

    Read from the file system only: the interpreter is never run on the host to ask it.
    Any interpreter but Prism's own is a task's: its folders must pass `interpreter_rule`
    (and not hold `keep_out`), or `InterpreterRefused` says which and why.
    """
    view = _view(python)
    if not trusted(python):
        for folder in view[0]:
            real = Path(os.path.realpath(folder))
            if not any(real.is_relative_to(r) for r in system_real_roots()):
                check_folder(real, python, [Path(os.path.realpath(p)) for p in keep_out])
    return view


def _view(python: str) -> tuple[list[Path], list[tuple[str, Path]]]:
    exe = Path(resolve_python(python))
    prefix = _prefix if trusted(python) else (lambda binary: installation(binary, python))
    folders: list[Path] = []
    links: list[tuple[str, Path]] = []
    if not exe.is_absolute() or not exe.exists():
        return folders, links  # the runner then fails to start with bwrap's own "No such file" message
    for _ in range(40):  # a link loop is the kernel's ELOOP inside the sandbox, not a hang here
        cfg = exe.parent.parent / "pyvenv.cfg"
        if cfg.is_file():
            folders.append(cfg.parent)
            for line in cfg.read_text(errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    folders.append(prefix(Path(value.strip()) / "python"))
        if not exe.is_symlink():
            folders.append(prefix(exe))
            break
        target = os.readlink(exe)
        if not cfg.is_file():
            links.append((target, exe))
        exe = _real_dir(Path(os.path.abspath(exe.parent / target)))
    return folders, links


def runner_paths(python: str, extra: list[Path]) -> list[Path]:
    """Host paths a runner started with `python` needs: that interpreter's, ours (whose pytest a
    task's venv may reuse), our site-packages, the runner folder, and `extra` (the tree cache)."""
    paths = {
        *interpreter_view(python, extra)[0],
        *interpreter_view(sys.executable)[0],
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(sys.exec_prefix),
        AGENT.parent,
        *[Path(p) for p in site.getsitepackages()],
        *extra,
    }
    user_site = site.getusersitepackages()
    if isinstance(user_site, str):
        paths.add(Path(user_site))
    real = {Path(os.path.realpath(p)) for p in paths if Path(p).exists()}
    return sorted(p for p in real if p != Path("/"))


def bind_args(paths: list[Path], hidden: list[Path], links: Sequence[tuple[str, Path]] = ()) -> list[str]:
    """Read-only binds for `paths` and the `(target, where)` links not shown by `system_args`, and an
    empty read-only tmpfs over each `hidden` folder (which must not already be mounted), ordered
    so parents are mounted before what lies inside them."""
    system = system_real_roots()
    mounts = [(h, "tmpfs", "") for h in hidden]
    mounts += [(p, "bind", "") for p in paths if not any(p.is_relative_to(r) for r in system)]
    mounts += [(where, "link", target) for target, where in links if not any(where.is_relative_to(r) for r in system)]
    mounts.sort(key=lambda m: (m[0].parts, m[1] != "tmpfs"))
    args: list[str] = []
    done: list[tuple[Path, str]] = []
    for path, kind, target in mounts:
        # Already shown by a bind above it, with no tmpfs in between hiding it again: skip.
        above = [(q, k) for q, k in done if path.is_relative_to(q)]
        if kind != "tmpfs" and above and above[-1][1] == "bind":
            continue
        if kind == "tmpfs":
            args += ["--size", str(1 << 20), "--tmpfs", str(path)]  # holds only mount points
        elif kind == "bind":
            args += ["--ro-bind", str(path), str(path)]
        else:
            args += ["--symlink", target, str(path)]
        done.append((path, kind))
    # Read-only once the binds inside exist: nothing one program writes there outlives it for
    # the next program of the same runner (the runner clears only /tmp, /dev/shm and its scratch).
    for h in hidden:
        args += ["--remount-ro", str(h)]
    return args

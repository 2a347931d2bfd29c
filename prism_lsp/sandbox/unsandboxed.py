"""The `none` backend: runs the runner as a plain process. Explicit opt-in only.

Limits still apply (rlimits per program, cgroup when allowed, reaping of every
process a program leaves), but there is no filesystem or network isolation.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from prism_lsp.sandbox.base import AGENT, Limits, RunnerProcess, popen_runner, runner_environment
from prism_lsp.sandbox.cgroup import Cgroup

WARNING = (
    "sandbox 'none': candidate code runs unisolated on this machine, with your user's rights "
    "(network, files). Use it only for code you trust."
)


class UnsandboxedBackend:
    name = "none"
    warning: str | None = WARNING

    def spawn(self, python: str, limits: Limits) -> RunnerProcess:
        scratch = Path(tempfile.mkdtemp(prefix="prism-scratch-"))
        cgroup = Cgroup.create(memory_bytes=(limits.memory_mb * 2 + 512) << 20, pids_max=limits.pids_max)
        # The same allowlisted environment as in a sandbox: not a protection here (the host's
        # files are open), but the same runs, hash seed included.
        bin_dir = os.path.dirname(os.path.abspath(shutil.which(python) or python))
        env = runner_environment(str(scratch), str(scratch), (bin_dir,), limits.hash_seed)
        return popen_runner([python, str(AGENT), "--scratch", str(scratch)], cgroup, [scratch], env=env)

    def close(self) -> None:
        pass

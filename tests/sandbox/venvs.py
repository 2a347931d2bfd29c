"""A venv made by hand for the sandbox tests: what a repository's `.venv` looks like, without pip."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def fake_venv(where: Path, home: str) -> Path:
    """A working venv (pytest from our packages) whose bin/python links to this interpreter's binary
    and whose pyvenv.cfg names `home`."""
    import site

    (where / "bin").mkdir(parents=True)
    packages = where / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "prism_test.pth").write_text(site.getsitepackages()[0] + "\n")
    (where / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    (where / "pyvenv.cfg").write_text(f"home = {home}\ninclude-system-site-packages = false\n")
    return where / "bin" / "python"

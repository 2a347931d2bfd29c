"""A 50-candidate task generated from an existing fixture's candidates.

Each of the fixture's candidates is copied five times as an overlay folder (its built tree's
changed files, plus a trailing comment naming the copy so every tree has its own digest);
labels and the reference are kept. Used by `runner_phases.py` for the "50-candidate panel,
warm" row of issue 11.

    python bench/panel50.py OUT_DIR [--fixture format-duration] [--copies 5]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prism_lsp.materialize import TreeCache  # noqa: E402
from prism_lsp.tasks import load_task  # noqa: E402


def generate(out: Path, fixture: str = "format-duration", copies: int = 5) -> Path:
    """Write the task into `out` (replaced) and return its folder."""
    task = load_task(ROOT / "fixtures" / fixture)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(task.root / "initial", out / "initial")
    shutil.copytree(task.root / "suites", out / "suites")
    manifest = [
        f'[task]\nid = "{task.id}-50"\nstatement = "{task.id}, each candidate five times"\n'
        f'initial = "initial"\ntimeout_s = {task.timeout_s:g}\n'
    ]
    with tempfile.TemporaryDirectory() as tmp:
        cache = TreeCache(Path(tmp))
        for cand in task.candidates:
            tree = cache.candidate(task, cand)
            for n in range(copies):
                cid = f"{cand.id}-{n}"
                folder = out / "candidates" / cid
                for rel in tree.changed:
                    src = tree.path / rel
                    dst = folder / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    text = src.read_text() if src.exists() else ""
                    dst.write_text(text + f"\n# copy {n}\n")
                folder.mkdir(parents=True, exist_ok=True)
                ref = "reference = true\n" if cand.reference and n == 0 else ""
                manifest.append(
                    f'[[candidate]]\nid = "{cid}"\nlabel = "{cand.label}"\n{ref}overlay = "candidates/{cid}"\n'
                )
    (out / "prism.toml").write_text("\n".join(manifest))
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fixture", default="format-duration")
    ap.add_argument("--copies", type=int, default=5)
    args = ap.parse_args()
    print(generate(Path(args.out), args.fixture, args.copies))

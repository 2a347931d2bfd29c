"""`--engine ray` gives the same bytes as the local engine: on a local Ray, and on a two-node cluster on this machine."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from prism_lsp.scoring import ScoreOptions, discover_pairs, score
from prism_lsp.scoring.aggregate import summary_json
from prism_lsp.scoring.job import HASH_SEED
from tests.conftest import ROOT
from tests.scoring.conftest import N_PAIRS, pair_files, prism

if os.environ.get("CI"):
    import ray  # CI installs the extra (scripts/setup.sh --test): missing there is a failure, not a skip
else:
    ray = pytest.importorskip(
        "ray", reason="Ray is an optional extra: pip install -e '.[ray]' (scripts/setup.sh --test)"
    )
pytestmark = pytest.mark.ray


def test_local_ray_gives_the_local_engines_json(reference, score_cache, tmp_path):
    folder, _, files = reference
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        run = score(
            discover_pairs([str(folder / "pairs.txt")]),
            ScoreOptions(engine="ray", out=tmp_path / "out", cache_dir=score_cache),
        )
    finally:
        ray.shutdown()
    assert run.scored == N_PAIRS and run.reused == 0
    assert {j["where"] for j in run.journal} == {f"ray node {n}" for n in {j["where"][9:] for j in run.journal}}
    printed = json.dumps(summary_json(run.records, HASH_SEED), indent=2) + "\n"  # what --json prints
    assert printed == (folder / "stdout.json").read_text()
    assert pair_files(tmp_path / "out") == files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Node:
    """One `ray start --block` in its own session; stop() ends that session's processes, and only those."""

    def __init__(self, args: list[str], env: dict, log: Path):
        ports = [
            "--dashboard-agent-listen-port",
            str(_free_port()),
            "--runtime-env-agent-port",
            str(_free_port()),
            "--metrics-export-port",
            str(_free_port()),
        ]
        self.log = log
        with open(log, "w") as fh:
            self.proc = subprocess.Popen(
                [shutil.which("ray"), "start", *args, "--num-cpus", "1", "--block", "--disable-usage-stats", *ports],
                env=env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, deadline_s: float = 300) -> None:
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if "block forever" in self.log.read_text():
                return
            if self.proc.poll() is not None:
                pytest.fail(f"ray start ended: {self.log.read_text()[-3000:]}")
            time.sleep(0.2)
        pytest.fail(f"ray start not ready after {deadline_s} s: {self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the session `ray start` leads: its raylet, GCS, workers
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            pass
        except ProcessLookupError:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)


@pytest.fixture
def two_node_cluster(tmp_path):
    """A head and a worker node on this machine, one CPU each, with a token only this test knows."""
    port = _free_port()
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    head = _Node(["--head", "--port", str(port), "--include-dashboard=false"], env, tmp_path / "head.log")
    nodes = [head]
    try:
        head.wait_ready()
        worker = _Node(["--address", f"127.0.0.1:{port}"], env, tmp_path / "worker.log")
        nodes.append(worker)
        worker.wait_ready()
        yield f"127.0.0.1:{port}", env
    finally:
        for node in reversed(nodes):
            node.stop()


def test_two_node_cluster_gives_the_local_engines_json(reference, two_node_cluster, score_cache, tmp_path):
    folder, _, files = reference
    address, env = two_node_cluster
    out = tmp_path / "out"
    proc = prism(
        "score",
        str(folder / "pairs.txt"),
        "--json",
        "--engine",
        "ray",
        "--ray-address",
        address,
        "--out",
        str(out),
        "--cache-dir",
        str(score_cache),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (folder / "stdout.json").read_text()
    assert pair_files(out) == files
    journal = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert len(journal) == N_PAIRS
    where = {j["where"] for j in journal}
    assert len(where) == 2 and all(w.startswith("ray node ") for w in where)  # both nodes scored pairs
    # Pairs are routed by task: every pair of a task ran on the same node, so its trees were built there once.
    by_task = {}
    for j in journal:
        by_task.setdefault(j["task"], set()).add(j["where"])
    assert all(len(nodes) == 1 for nodes in by_task.values())


@pytest.mark.docker
def test_ray_with_the_docker_sandbox_gives_the_local_docker_json(tmp_path, docker_image):
    """`--sandbox docker` on Ray nodes: each node runs its pairs in its own Docker, same bytes as locally."""
    pairs = tmp_path / "pairs.txt"
    pairs.write_text(
        f"{ROOT}/fixtures/mean-rounded:{ROOT}/fixtures/mean-rounded/suites/test_overfit.py\n"
        f"{ROOT}/fixtures/slugify:{ROOT}/fixtures/slugify/suites/test_weak.py\n"
    )
    runs = {}
    for engine in ("local", "ray"):
        proc = prism(
            "score",
            str(pairs),
            "--sandbox",
            "docker",
            "--engine",
            engine,
            "--json",
            "--out",
            str(tmp_path / engine),
            "--cache-dir",
            str(tmp_path / f"cache-{engine}"),
        )
        assert proc.returncode == 0, proc.stderr
        runs[engine] = proc.stdout
        stored = pair_files(tmp_path / engine)
        assert len(stored) == 2 and all('"sandbox": "docker"' in text for text in stored.values())
    assert runs["ray"] == runs["local"]
    assert pair_files(tmp_path / "ray") == pair_files(tmp_path / "local")

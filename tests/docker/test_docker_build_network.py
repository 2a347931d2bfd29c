"""A task's Dockerfile is untrusted: its RUN steps, root in the build container, get no network
(issue 21, break 4: they had the default bridge's route to the host and beyond)."""

from __future__ import annotations

import uuid

import pytest

from prism_lsp.sandbox.docker_image import build_image, connect

pytestmark = pytest.mark.docker

# Fails the build, saying what it reached, when the step has any route but loopback or can open a
# socket towards the default bridge's gateway (the host) or beyond.
PROBE = r"""
import socket, sys
routes = [line.split()[:2] for line in open("/proc/net/route").read().splitlines()[1:]]
reached = [iface for iface, _ in routes if iface != "lo"]
for host in ("172.17.0.1", "1.1.1.1"):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, 9))
        reached.append(host + " connected")
    except ConnectionRefusedError:
        reached.append(host + " answered (refused)")
    except OSError:  # unreachable: no route
        pass
    finally:
        s.close()
if reached:
    sys.exit("prism-build-reached-network: " + ", ".join(reached))
print("prism-build-no-network")
"""


def test_a_dockerfile_run_step_has_no_route_out(tmp_path, docker_image):
    env = tmp_path / "env"
    env.mkdir()
    (env / "probe.py").write_text(PROBE)
    # A label of its own: a fresh build each time (the digest names the image), never one reused.
    (env / "Dockerfile").write_text(
        f"FROM {docker_image}\nLABEL prism.test={uuid.uuid4().hex}\nCOPY probe.py /probe.py\nRUN python3 /probe.py\n"
    )
    tag = build_image(env / "Dockerfile")  # raised ImageUnavailable naming what the step reached
    client = connect()
    try:
        client.images.remove(tag, force=True)
    finally:
        client.close()

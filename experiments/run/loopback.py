"""A Ray cluster on this machine, started as users start one on many: ``ray start --head`` and
``ray start --address`` subprocesses, each node a raylet of its own on a loopback address of its
own (127.0.0.2, 127.0.0.3, ...; Linux routes all of 127.0.0.0/8 to loopback), with token
authentication on.  The cluster tests (tests/test_cluster_join.py) and ``dynasty bench cluster``
use it; docs/cluster.md shows it by hand.

Every node gets its own temporary directory and its own free ports, so a cluster never meets
another one on the machine (nor Ray's ``/tmp/ray/ray_current_cluster``), and each node runs in
a process group of its own: :meth:`RayStartCluster.kill_node` stops one node's raylet and
workers as a crash would, and :meth:`RayStartCluster.shutdown` stops the rest (never
``ray stop``, which stops every Ray on the machine)."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class Node:
    ip: str
    process_group: int
    temp_dir: Path


@dataclass
class RayStartCluster:
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="dl-ray-")))
    nodes: list[Node] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self.token_path = self.root / "token"
        self.token_path.write_text(secrets.token_hex(32))
        self.token_path.chmod(0o600)

    @property
    def address(self) -> str:
        return f"{self.nodes[0].ip}:{self.port}"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of the cluster's processes: token authentication on, with the token
        of this cluster; no trace of a Ray address or mode from outside."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_ADDRESS", "RAY_AUTH"))}
        env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
        env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(self.token_path), **extra)
        return env

    def start_node(self, python: str | None = None, cpus: int = 1, **env: str) -> Node:
        """The head (first call) or one more node with ``cpus`` CPUs and ``env`` in its
        environment (e.g. ``RAY_worker_niceness="0"``); ``python`` runs ``ray start`` (and so
        the node's workers) in another interpreter."""
        ip = f"127.0.0.{len(self.nodes) + 2}"
        temp = self.root / f"n{len(self.nodes)}"
        worker_lo = 20000 + 1000 * len(self.nodes) + (os.getpid() % 50) * 20
        args = [
            f"--node-ip-address={ip}",
            f"--num-cpus={cpus}",
            f"--temp-dir={temp}",
            "--disable-usage-stats",
            f"--node-manager-port={free_port()}",
            f"--object-manager-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}",
            f"--dashboard-agent-grpc-port={free_port()}",
            f"--metrics-export-port={free_port()}",
            f"--runtime-env-agent-port={free_port()}",
            f"--min-worker-port={worker_lo}",
            f"--max-worker-port={worker_lo + 19}",
        ]
        if not self.nodes:
            self.port = free_port()
            args += ["--head", f"--port={self.port}", "--include-dashboard=false"]
        else:
            args += [f"--address={self.address}"]
        cmd = (
            [RAY, "start", *args]
            if python is None
            else [
                python,
                "-c",
                "import sys; from ray.scripts.scripts import main; sys.exit(main())",
                "start",
                *args,
            ]
        )
        proc = subprocess.Popen(
            cmd,
            env=self.env(**env),
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # the node's daemons stay in this process group
        )
        out, _ = proc.communicate(timeout=180)
        node = Node(ip, proc.pid, temp)
        self.nodes.append(node)
        if proc.returncode != 0:
            raise RuntimeError(f"ray start failed:\n{out[-3000:]}")
        return node

    def kill_node(self, node: Node) -> None:
        """Stop a node's raylet and workers at once, as a crash or a pulled cable would."""
        with suppress(ProcessLookupError):  # ended already
            os.killpg(node.process_group, signal.SIGKILL)

    def wait_nodes(self, n: int, timeout_s: float = 60.0) -> None:
        """Wait until the cluster counts ``n`` live nodes."""
        t0 = time.time()
        while time.time() - t0 < timeout_s:
            out = subprocess.run(
                [RAY, "status", f"--address={self.address}"],
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            if out.count(" node_") >= n and "Pending" in out:
                active = out.split("Active:")[1].split("Pending:")[0]
                if active.count("node_") >= n:
                    return
            time.sleep(1)
        raise TimeoutError(f"the cluster did not reach {n} nodes")

    def shutdown(self) -> None:
        for node in reversed(self.nodes):
            with suppress(ProcessLookupError):  # ended already
                os.killpg(node.process_group, signal.SIGTERM)
        deadline = time.time() + 3
        for node in self.nodes:
            while time.time() < deadline and _alive(node.process_group):
                time.sleep(0.2)
            with suppress(ProcessLookupError):  # ended already
                os.killpg(node.process_group, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True

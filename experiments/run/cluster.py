"""Joining a Ray cluster started with ``ray start`` (docs/cluster.md).

A new Ray cluster turns token authentication on by default, and a process that joins it must
send the cluster's token; Ray's client only does so when ``RAY_AUTH_MODE=token`` is set in its
environment.  :func:`join` sets it when a token is available here and the user has not chosen a
mode, so ``--address`` works the first time, and turns every way joining can fail into one
line that says what to do (:class:`ClusterError`).

Once joined, :func:`check_nodes` starts one small task on every node: a node whose Python
cannot load the project is named at once (instead of failing chunk after chunk with a worker's
traceback), and the niceness of each node's workers is found and recorded; a node whose workers
run at a higher niceness than this command (Ray's default for ``ray start`` is 15) is reported
in a line, since on a busy machine such workers get only a small share of its cores.  Each
node also reports the digest of every game's component data files; a run stops before its first
game if a node's data for its game differ from the command's (:func:`check_component_data`).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

AUTH_MODE_ENV = "RAY_AUTH_MODE"
TOKEN_ENV = "RAY_AUTH_TOKEN"
TOKEN_PATH_ENV = "RAY_AUTH_TOKEN_PATH"
CONNECT_TIMEOUT_S = 5.0  # for the head's port to accept a connection
PROBE_TIMEOUT_S = 120.0  # a node that starts no worker in this time is named
DOCS = "docs/cluster.md"
NODE_GONE = ("TaskUnschedulableError", "NodeDiedError", "WorkerCrashedError")


class ClusterError(RuntimeError):
    """The cluster could not be joined or used; the message is one line that says what to do."""


def token_source() -> str | None:
    """Where Ray's client would read the cluster's token from here (Ray's own order: the
    ``RAY_AUTH_TOKEN`` variable, the file ``RAY_AUTH_TOKEN_PATH`` names, ``~/.ray/auth_token``),
    or None when there is none."""
    if os.environ.get(TOKEN_ENV, "").strip():
        return TOKEN_ENV
    named = os.environ.get(TOKEN_PATH_ENV, "").strip()
    if named:
        return named if Path(named).expanduser().is_file() else None
    default = Path.home() / ".ray" / "auth_token"
    return str(default) if default.is_file() else None


def prepare_auth() -> bool:
    """Ask Ray's client to send the cluster's token when one is available here and
    ``RAY_AUTH_MODE`` is unset (a token sent to a cluster without authentication is ignored);
    True if it will be sent."""
    mode = os.environ.get(AUTH_MODE_ENV)
    if mode is not None:
        return mode.strip().lower() == "token"
    if token_source() is None:
        return False
    os.environ[AUTH_MODE_ENV] = "token"
    if "ray" in sys.modules:  # Ray read the mode when it was imported: make it read it again
        from ray._raylet import Config

        Config.initialize("")
    return True


def _chain(e: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    while e is not None and e not in out:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0]}" if text else type(e).__name__


def explain_join_failure(address: str, e: BaseException) -> str:
    """One line for a failed ``ray.init(address=...)``: authentication, an address where no
    cluster answers, or anything else Ray reports (its first line)."""
    chain = _chain(e)
    if _is_auth_failure(e):
        mode = os.environ.get(AUTH_MODE_ENV, "").strip().lower()
        source = token_source()
        if mode == "disabled":
            return (
                f"the Ray cluster at {address} requires token authentication, but "
                f"{AUTH_MODE_ENV}=disabled is set here: unset it and make the cluster's token "
                f"available ({DOCS})"
            )
        if source is None:
            return (
                f"the Ray cluster at {address} requires token authentication and no token is "
                "found here: copy the head node's token (`ray get-auth-token` there) to "
                f"~/.ray/auth_token, or set {TOKEN_ENV} or {TOKEN_PATH_ENV} ({DOCS})"
            )
        return (
            f"the Ray cluster at {address} refused the token from {source}: it is not that "
            f"cluster's; use the head node's (`ray get-auth-token` there) ({DOCS})"
        )
    if any(isinstance(x, (ConnectionError, TimeoutError)) for x in chain):
        return (
            f"no Ray cluster answers at {address}: check the address and port (the head's "
            f"`ray start --head --port=...`) and that the head is running, or leave --address "
            f"and RAY_ADDRESS unset for a local Ray ({DOCS})"
        )
    return f"could not join the Ray cluster at {address} ({_first_line(chain[-1])})"


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`ClusterError` at once when nothing accepts a connection at ``host:port``
    (Ray itself would retry for minutes); other address forms are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise ClusterError(
            f"no Ray cluster answers at {address} ({e.strerror or type(e).__name__}): check the "
            "address and port (the head's `ray start --head --port=...`) and that the head is "
            f"running, or leave --address and RAY_ADDRESS unset for a local Ray ({DOCS})"
        ) from None


@contextmanager
def _stderr_held() -> Iterator[list[str]]:
    """Hold what is written to file descriptor 2 (Ray's C++ client logs each failed retry there)
    in a temporary file; the caller gets it and decides whether to show it."""
    held: list[str] = []
    with suppress(OSError, ValueError):
        sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield held
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            held.append(tmp.read().decode(errors="replace"))


def check_token(address: str) -> None:
    """Raise :class:`ClusterError` at once when the cluster refuses this process's token (or its
    lack of one): one connection to its GCS, where ``ray.init`` would retry for 20 seconds."""
    from ray._raylet import GcsClient

    with _stderr_held():
        try:
            GcsClient(address=address)
            failure = None
        except Exception as e:  # only an authentication failure is decided here
            failure = explain_join_failure(address, e) if _is_auth_failure(e) else None
    if failure:
        raise ClusterError(failure)


def _is_auth_failure(e: BaseException) -> bool:
    chain = _chain(e)
    text = " ".join(str(x) for x in chain)
    return any(type(x).__name__ == "AuthenticationError" for x in chain) or (
        "Authentication token" in text or "auth_token" in text
    )


def join(ray, address: str) -> None:
    """``ray.init`` on the cluster at ``address``, raising :class:`ClusterError` in one line
    (Ray's own log lines of a failed attempt are dropped; those of a successful one are shown)."""
    check_reachable(address)
    prepare_auth()
    check_token(address)
    with _stderr_held() as held:
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=True,
            )
            failure = None
        except Exception as e:  # Ray raises ConnectionError, AuthenticationError, RuntimeError...
            failure = explain_join_failure(address, e)
    if failure:
        raise ClusterError(failure)
    if held[0].strip():
        sys.stderr.write(held[0])


def component_digests() -> dict[str, str]:
    """Per registered game with component data, the digest of its data files as found here
    (``Components.digest``: the values the kernels receive)."""
    from sim.registry import game_names, get_game

    out = {}
    for name in game_names():
        try:
            comp = get_game(name).components
        except Exception:  # a game that does not load here is reported when a run uses it
            continue
        if comp is not None:
            out[name] = comp.digest
    return out


def _probe() -> dict[str, Any]:
    """Runs on a node: loads the project and says where it runs and which data it plays with."""
    from experiments.run import store

    return {
        "niceness": os.getpriority(os.PRIO_PROCESS, 0),
        "commit": store.git_commit().get("commit"),
        "component_data": component_digests(),
    }


def check_component_data(nodes: list[dict[str, Any]], game: str, digest: str | None) -> None:
    """Raise :class:`ClusterError` naming the first node (of :func:`check_nodes`) whose data
    files for ``game`` differ from this command's (``digest``): its workers would play another
    game under the same seeds."""
    for n in nodes:
        theirs = (n.get("component_data") or {}).get(game)
        if digest and theirs and theirs != digest:
            raise ClusterError(
                f"node {n.get('address', '?')} ({str(n.get('node', '?'))[:8]}) has other {game} "
                f"component data (digest {theirs} there, {digest} here): its workers would play "
                f"other games under the same seeds; install the same sim/{game}/data/ files on "
                f"every node ({DOCS})"
            )


def alive_nodes(ray) -> list[dict[str, Any]]:
    """The cluster's live nodes that have CPUs (where the run's workers can go)."""
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


def node_name(node: dict[str, Any]) -> str:
    return f"node {node.get('NodeManagerAddress', '?')} ({node['NodeID'][:8]})"


def check_nodes(ray, *, out=None) -> list[dict[str, Any]]:
    """Start one task on every live node: raise :class:`ClusterError` naming a node that cannot
    load the project or starts no worker; print a line (to ``out``, default stderr) for a node
    whose workers run at a higher niceness than this process, or at another commit of the code.
    Returns ``{node, address, niceness, commit, component_data}`` per node, for the run's
    manifest (a run then checks its game's data with :func:`check_component_data`)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from experiments.run import store

    out = sys.stderr if out is None else out
    nodes = alive_nodes(ray)
    probe = ray.remote(num_cpus=0, max_retries=0)(_probe)
    refs = [
        probe.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)
        ).remote()
        for n in nodes
    ]
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    commit = store.git_commit().get("commit")
    found = []
    for node, ref in zip(nodes, refs):
        ready, _ = ray.wait([ref], timeout=PROBE_TIMEOUT_S)
        if not ready:
            raise ClusterError(
                f"{node_name(node)} started no worker in {PROBE_TIMEOUT_S:.0f} s: check that node "
                f"(`ray status` on the head, its logs under /tmp/ray/session_latest/logs) ({DOCS})"
            )
        try:
            info = ray.get(ref)
        except Exception as e:
            if type(e).__name__ in NODE_GONE:  # listed as alive, stopped since: the run goes on
                print(f"{node_name(node)} is gone; the run goes on without it", file=out)
                continue
            missing = re.search(r"No module named '[^']+'", str(e))
            what = missing.group(0) if missing else _first_line(getattr(e, "cause", None) or e)
            raise ClusterError(
                f"{node_name(node)} cannot run the project ({what[:200]}): install dynasty-lab "
                f"there, in the Python that runs `ray start` ({DOCS})"
            ) from None
        if info["niceness"] > mine:
            print(
                f"{node_name(node)}: its workers run at niceness {info['niceness']}, above this "
                f"command's {mine}, so on a busy machine they get little CPU; start the node with "
                f"RAY_worker_niceness={mine} ray start ... ({DOCS})",
                file=out,
                flush=True,
            )
        if commit and info["commit"] and info["commit"] != commit:
            print(
                f"{node_name(node)}: runs the project at commit {info['commit'][:12]}, this "
                f"command at {commit[:12]}; results can differ between the two ({DOCS})",
                file=out,
                flush=True,
            )
        found.append(
            {
                "node": node["NodeID"],
                "address": node.get("NodeManagerAddress"),
                "niceness": info["niceness"],
                "commit": info["commit"],
                "component_data": info.get("component_data", {}),
            }
        )
    return found

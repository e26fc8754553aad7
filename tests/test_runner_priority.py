"""A local run's Ray: its workers run at the driver's priority (Ray's default niceness of 15 would
leave them a few percent of a core on a busy machine), or at the niceness the run asks for; and
nothing it starts listens beyond loopback.

Both are read from the operating system while the run is playing: the niceness from /proc for
every Ray worker process below the driver, the listening sockets of the driver and every
process below it from the kernel's socket table (psutil).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.run.config import from_dict
from experiments.run.runner import RunError, run

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")


def _processes() -> dict[int, tuple[int, int, str]]:
    """pid -> (parent pid, niceness, command line) of every process the OS lists."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # the process ended while we looked
            continue
        fields = stat.rsplit(")", 1)[
            1
        ].split()  # after "pid (comm)": state, ppid, ... ; nice is field 19
        out[int(d.name)] = (int(fields[1]), int(fields[16]), cmd)
    return out


RAY_AGENTS = ("ray::DashboardAgent", "ray::RuntimeEnvAgent")  # the raylet's helpers, not workers


def _below(root: int, procs) -> set[int]:
    below, frontier = set(), {root}
    while frontier:
        frontier = {p for p, (pp, _, _) in procs.items() if pp in frontier and p not in below}
        below |= frontier
    return below


def _ray_workers_below(root: int) -> dict[int, int]:
    """pid -> niceness of every Ray worker process descended from ``root`` (titled ``ray::IDLE``,
    ``ray::ChunkPlayer`` ...)."""
    procs = _processes()
    return {
        p: procs[p][1]
        for p in _below(root, procs)
        if procs[p][2].startswith("ray::") and not procs[p][2].startswith(RAY_AGENTS)
    }


LOOPBACK = ("127.", "::1", "::ffff:127.")


def _listening_below(root: int) -> list[tuple[str, int, str]]:
    """(address, port, process) of every TCP socket listening in ``root`` or a process below it."""
    import psutil

    pids = _below(root, _processes()) | {root}
    out = []
    for c in psutil.net_connections(kind="tcp"):
        if c.status == psutil.CONN_LISTEN and c.pid in pids:
            out.append((c.laddr.ip, c.laddr.port, _processes().get(c.pid, (0, 0, "?"))[2][:40]))
    return out


def _cfg(tmp_path, name):
    return from_dict(
        {
            "name": name,
            "game": "goofspiel",
            "players": 2,
            "agents": ["random"],
            "seats": "fixed",
            "games": 4000,
            "seed": 7,
            "output": str(tmp_path / name),
            "replays": 0,
        },
        f"{name}.toml",
    )


def _seen_during_run(tmp_path, name, **kw) -> dict[int, int]:
    import ray

    if ray.is_initialized():
        # another module's session: this test needs a Ray the run starts itself
        ray.shutdown()
    seen: dict[int, int] = {}
    listening: list = []

    def look(written, actors):
        if written == 1:
            listening.extend(_listening_below(os.getpid()))
            seen.update(_ray_workers_below(os.getpid()))
            seen.update(
                {
                    i["pid"]: os.getpriority(os.PRIO_PROCESS, i["pid"])
                    for i in ray.get([a.ready.remote() for a in actors])
                }
            )

    s = run(_cfg(tmp_path, name), workers=2, chunk_size=200, progress=False, on_chunk=look, **kw)
    assert s.status == "complete" and not ray.is_initialized()
    assert len(listening) >= 4, listening  # GCS, raylet, workers ...: they were seen
    assert [x for x in listening if not x[0].startswith(LOOPBACK)] == [], (
        "listening beyond loopback"
    )
    return seen


def test_local_workers_run_at_the_drivers_niceness_and_listen_on_loopback_only(tmp_path):
    seen = _seen_during_run(tmp_path, "same")
    assert len(seen) >= 2, seen  # the two playing workers at least
    assert set(seen.values()) == {os.getpriority(os.PRIO_PROCESS, 0)}, seen


def test_niceness_option_lets_a_run_yield_to_other_work(tmp_path):
    want = min(os.getpriority(os.PRIO_PROCESS, 0) + 7, 19)
    seen = _seen_during_run(tmp_path, "nicer", niceness=want)
    assert len(seen) >= 2 and set(seen.values()) == {want}, seen


def test_niceness_is_refused_where_it_cannot_apply(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "x.toml", "--niceness", "25"])
    assert (
        e.value.code == 2
        and "expected an integer from -20 to 19, got 25" in capsys.readouterr().err
    )
    with pytest.raises(RunError, match="local Ray only"):
        run(_cfg(tmp_path, "cluster"), address="127.0.0.1:1", niceness=5, progress=False)

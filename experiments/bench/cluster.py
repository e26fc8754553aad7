"""One run on one node and on two: the scaling of ``dynasty run --address`` on a cluster of
``ray start`` nodes on this machine's loopback addresses (experiments.run.loopback).

    dynasty bench cluster [--games 600000] [--game middle_kingdom] [--players 4]
                          [--chunk-size 5000] [--cpus-per-node 1]

Starts a head node (token authentication on, as ``ray start`` does by default), runs
``dynasty run CONFIG --address HEAD`` on a temporary config of random agents, adds a second
node and runs the same config into a fresh folder, then stops the cluster.  Each node runs its
workers at this command's niceness (``RAY_worker_niceness``), so the figures measure scaling,
not priority.  Prints the play rate of each run (games / the run's play time, from its
manifest) and the ratio two nodes : one node, and checks that both runs wrote the same rows.
The ratio can reach the number of nodes only when the machine has a free core for each
worker.  Results go to docs/performance.md ("A run on one node and on two").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from experiments.run.loopback import RayStartCluster


def _run(config: Path, out: Path, address: str, env: dict[str, str]) -> dict:
    """``dynasty run CONFIG --address ADDRESS`` as a user runs it; its last session's record."""
    t0 = time.perf_counter()
    dynasty = str(Path(sys.executable).with_name("dynasty"))
    r = subprocess.run(
        [dynasty, "run", str(config), "--address", address, "--quiet"],
        env=env,
        cwd=out.parent,  # not the checkout: a node must have the project installed
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise SystemExit(f"dynasty run failed:\n{r.stderr[-2000:]}")
    session = json.loads((out / "manifest.json").read_text())["sessions"][-1]
    return {"wall_s": time.perf_counter() - t0, **session}


def _rows(out: Path):
    from experiments.analysis.results import load_results

    df = load_results(out).drop(columns=["agent_ms"])  # measured time: differs per run
    return df.sort_values(["game_index", "seat"]).reset_index(drop=True)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="dynasty bench cluster",
        description="One run on a cluster of `ray start` nodes on loopback addresses: on one "
        "node, then on two.",
    )
    ap.add_argument("--games", type=int, default=600_000, help="games per run (default 600000)")
    ap.add_argument("--game", default="middle_kingdom", help="game (default middle_kingdom)")
    ap.add_argument("--players", type=int, default=4, help="players (default 4)")
    ap.add_argument("--chunk-size", type=int, default=5000, help="games per chunk (default 5000)")
    ap.add_argument("--cpus-per-node", type=int, default=1, help="CPUs of each node (default 1)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    nice = str(os.getpriority(os.PRIO_PROCESS, 0))
    cluster = RayStartCluster()
    work = Path(tempfile.mkdtemp(prefix="dl-bench-"))
    env = cluster.env()
    env.pop("RAY_AUTH_MODE")  # a user's shell with the copied token: the run turns token mode on
    rows = {}
    try:
        results = {}
        for nodes in (1, 2):
            cluster.start_node(cpus=args.cpus_per_node, RAY_worker_niceness=nice)
            cluster.wait_nodes(nodes)
            config = work / f"nodes{nodes}.toml"
            config.write_text(
                f'game = "{args.game}"\nplayers = {args.players}\n'
                f'agents = {json.dumps(["random"] * args.players)}\nseats = "fixed"\n'
                f"games = {args.games}\nseed = 1\nchunk_size = {args.chunk_size}\n"
                f'output = "{work / f"nodes{nodes}"}"\n'
            )
            out = work / f"nodes{nodes}"
            results[nodes] = s = _run(config, out, cluster.address, env)
            play = s["timings"]["play_wall_s"]
            print(
                f"{nodes} node(s), {s['workers']} worker(s) at niceness "
                f"{sorted({n['niceness'] for n in s['cluster_nodes']})}: {args.games:,} games "
                f"played in {play:.2f} s = {args.games / play:,.0f} games/s (command wall time "
                f"{s['wall_s']:.1f} s, start-up {s['timings']['startup_s']:.1f} s)",
                flush=True,
            )
            rows[nodes] = _rows(out)
        r1 = args.games / results[1]["timings"]["play_wall_s"]
        r2 = args.games / results[2]["timings"]["play_wall_s"]
        same = rows[1].equals(rows[2])
        print(f"two nodes : one node = {r2 / r1:.2f}x play rate; the same rows: {same}")
        print(f"machine: {os.cpu_count()} cores")
    finally:
        cluster.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

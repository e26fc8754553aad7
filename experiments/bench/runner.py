"""End-to-end runner throughput: N random games through the `dynasty run` code path.

    dynasty bench runner [--games 1000000] [--game middle_kingdom] [--players 4]
                         [--workers N] [--chunk-size N] [--raw-games 100000] [--keep DIR]

Plays the games exactly as ``dynasty run`` does (local Ray started and stopped, actors,
Parquet part files, manifest) into a temporary folder, prints the time split into start-up,
play and writing, then measures the raw kernel speed in this process (one core, no Ray, no
Parquet) and prints the ratio of end-to-end to raw games/s.  Numbers only; nothing is
asserted.  Results go to docs/performance.md ("End-to-end runner throughput").
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="dynasty bench runner", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--game", default="middle_kingdom")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--chunk-size", type=int, default=None)
    ap.add_argument("--raw-games", type=int, default=100_000, help="games for the in-process kernel measurement")
    ap.add_argument("--keep", default=None, help="write the results here and keep them")
    args = ap.parse_args(argv)

    import os
    import platform

    from experiments.config import from_dict
    from experiments.runner import ChunkContext, job_of, run

    out = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="dynasty-bench-runner-"))
    if args.keep and out.exists():
        shutil.rmtree(out)
    cfg = from_dict({"name": "bench-runner", "game": args.game, "players": args.players, "agents": ["random"],
                     "seats": "fixed", "games": args.games, "seed": 2026, "output": str(out)}, "bench")
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"end to end: `dynasty run` of {args.games:,} {args.game} {args.players}-player games, random agents")
    try:
        t0 = time.perf_counter()
        s = run(cfg, workers=args.workers, chunk_size=args.chunk_size, progress=True)
        wall = time.perf_counter() - t0
        t = s.timings
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
        print(f"  workers {s.workers} on {s.nodes} node(s), chunks of {s.chunk_size:,} games, "
              f"{size / 2**20:,.1f} MiB of Parquet ({s.played * args.players:,} rows)")
        print(f"  total            {wall:7.2f} s   {s.played / wall:10,.0f} games/s end to end")
        print(f"  start-up         {t['startup_s']:7.2f} s   (driver kernel warm-up {t['driver_warm_s']:.2f} s, "
              f"Ray start {t['ray_start_s']:.2f} s, workers start and load kernels "
              f"{t['startup_s'] - t['driver_warm_s'] - t['ray_start_s']:.2f} s, of which compile/load "
              f"{t['worker_warm_s']:.2f} s)")
        print(f"  play and write   {t['play_wall_s']:7.2f} s   {s.played / t['play_wall_s']:10,.0f} games/s "
              f"(from workers ready to the last part written)")
        print(f"    kernel, summed over workers   {t['worker_play_s']:7.2f} s   "
              f"{s.played / t['worker_play_s']:10,.0f} games/s per worker")
        print(f"    Parquet encode, summed        {t['worker_encode_s']:7.2f} s")
        print(f"    driver file writes            {t['write_s']:7.2f} s")
        print(f"  shutdown         {t['shutdown_s']:7.2f} s")
        print(f"  other            {wall - t['startup_s'] - t['play_wall_s'] - t['shutdown_s']:7.2f} s   "
              "(manifest, config copy, Python start not included)")
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)

    print(f"raw kernel: {args.raw_games:,} games in this process, one core, no Ray, no Parquet")
    ctx = ChunkContext(job_of(cfg))
    tc = time.perf_counter()
    ctx.play(0, 1)
    compile_s = time.perf_counter() - tc
    tr = time.perf_counter()
    ctx.play(0, args.raw_games)
    raw = args.raw_games / (time.perf_counter() - tr)
    print(f"  compile {compile_s:.2f} s; {raw:,.0f} games/s per core; x {s.workers} workers = {raw * s.workers:,.0f} games/s")
    print(f"ratio end to end / raw ({s.workers} workers): {s.played / wall / (raw * s.workers):.3f}; "
          f"play phase only: {s.played / t['play_wall_s'] / (raw * s.workers):.3f}")
    return 0

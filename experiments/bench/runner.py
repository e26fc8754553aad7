"""End-to-end runner throughput: N random games through `dynasty run`, as a user runs it.

    dynasty bench runner [--games 1000000] [--game middle_kingdom] [--players 4]
                         [--workers N] [--chunk-size N] [--raw-games 100000] [--keep DIR]
                         [--contention] [--niceness N]

1. Fills the numba disk cache in a separate process (as any earlier run would have), and
   reports how long that took (a compile when the cache was cold, a load when warm).
2. Runs ``python -m experiments.cli run CONFIG`` in a subprocess on a temporary config of
   random agents and fixed seats: local Ray started and stopped, actors, Parquet part files,
   manifest.  The wall time of that command is the end-to-end figure; the split into
   start-up, play and writing comes from the session timings in its manifest.
3. Measures the raw kernel speed in this process (one core, no Ray, no Parquet) and prints
   the ratio of end-to-end to raw games/s (raw x number of workers).

``--contention`` measures on a busy machine: one busy process per core, at this command's
priority, runs for the length of steps 2 and 3 (each ends by itself after ``BUSY_LIMIT_S`` at
the latest, and all are stopped at the end), so the runner's play rate per worker is compared
with the raw kernel's under the same load.  ``--niceness N`` passes ``--niceness`` to the run
(15 is Ray's own default).

Numbers only; nothing is asserted.  Results go to docs/performance.md ("End-to-end runner
throughput").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim import compile_cache

ROOT = Path(__file__).resolve().parents[2]

WARM = """
import sys, time
t = time.perf_counter()
from experiments.run.config import load_config
from experiments.run.runner import ChunkContext, job_of, warm_leaf_kernels
cfg = load_config(sys.argv[1])
warm_leaf_kernels(cfg.spec, cfg.players, cfg.spec.encode_options(cfg.options))
ChunkContext(job_of(cfg)).play(0, 1)
print(time.perf_counter() - t)
"""


BUSY_LIMIT_S = 900
BUSY = "import time\nt = time.monotonic() + {limit}\nwhile time.monotonic() < t:\n    pass\n"


def start_busy(n: int, limit_s: float = BUSY_LIMIT_S) -> list[subprocess.Popen]:
    """``n`` processes that each keep one core busy (at the caller's priority)
    for at most ``limit_s``."""
    return [
        subprocess.Popen([sys.executable, "-c", BUSY.format(limit=float(limit_s))])
        for _ in range(n)
    ]


def stop_busy(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def _toml(cfg: dict) -> str:
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in cfg.items())


def _cache_key(game: str) -> tuple[str, ...]:
    """The numba cache folders the run's kernels live in (they change when their sources do)."""
    root = compile_cache.ROOT
    files = [root / "sim" / game / "__init__.py", root / "agents" / "arena.py"]
    return tuple(compile_cache.cache_folder(f) for f in files)


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench runner``."""
    ap = argparse.ArgumentParser(prog="dynasty bench runner", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000, help="games of the run")
    ap.add_argument("--game", default="middle_kingdom", help="the game")
    ap.add_argument("--players", type=int, default=4, help="seats")
    ap.add_argument("--workers", type=int, default=None, help="the run's --workers")
    ap.add_argument("--chunk-size", type=int, default=None, help="the run's --chunk-size")
    ap.add_argument(
        "--raw-games", type=int, default=100_000, help="games for the in-process kernel measurement"
    )
    ap.add_argument("--keep", default=None, help="write the results here and keep them")
    ap.add_argument(
        "--contention",
        action="store_true",
        help="measure with one busy process per core running at normal priority",
    )
    ap.add_argument(
        "--niceness", type=int, default=None, help="the run's --niceness (15 = Ray's default)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="dynasty-bench-runner-"))
    out = Path(args.keep).resolve() if args.keep else tmp / "results"
    if args.keep and out.exists():
        shutil.rmtree(out)
    cfg_path = tmp / "bench.toml"
    cfg_path.write_text(
        _toml(
            {
                "name": "bench-runner",
                "game": args.game,
                "players": args.players,
                "agents": ["random"],
                "seats": "fixed",
                "games": args.games,
                "seed": 2026,
                "output": str(out),
            }
        )
    )
    cmd = [sys.executable, "-m", "experiments.cli", "run", str(cfg_path)]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.chunk_size:
        cmd += ["--chunk-size", str(args.chunk_size)]
    if args.niceness is not None:
        cmd += ["--niceness", str(args.niceness)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {os.cpu_count()} CPUs, python "
        f"{platform.python_version()}, load average {load:.2f} at start"
    )
    cache_before = _cache_key(args.game)
    busy: list[subprocess.Popen] = []
    try:
        warm = subprocess.run(
            [sys.executable, "-c", WARM, str(cfg_path)], cwd=ROOT, capture_output=True, text=True
        )
        warm_s = (
            float(warm.stdout.strip().splitlines()[-1]) if warm.returncode == 0 else float("nan")
        )
        print(
            f"numba disk cache filled in a separate process: {warm_s:.2f} s "
            f"({'a compile: the cache was cold' if warm_s > 5 else 'a load: the cache was warm'})"
        )

        if args.contention:
            busy = start_busy(os.cpu_count() or 1)
            print(
                f"contention: {len(busy)} busy processes (one per core) at niceness "
                f"{os.getpriority(os.PRIO_PROCESS, 0)}, running until the end of the measurement"
            )
        print(
            f"end to end: {' '.join(['dynasty'] + cmd[3:])}  ({args.games:,} {args.game} "
            f"{args.players}-player games, random agents)",
            flush=True,
        )
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, cwd=ROOT).returncode
        wall = time.perf_counter() - t0
        if rc != 0:
            print(f"dynasty run failed (exit code {rc})")
            return rc
        m = json.loads((out / "manifest.json").read_text())
        s = m["sessions"][-1]
        t = s["timings"]
        played, workers = s["games_played"], s["workers"]
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
        print(
            f"  workers {workers} on {s['nodes']} node(s), chunks of {s['chunk_size']:,} games, "
            f"{size / 2**20:,.1f} MiB of Parquet ({played * args.players:,} rows)"
        )
        print(
            f"  total (command wall time)  {wall:7.2f} s   "
            f"{played / wall:10,.0f} games/s end to end"
        )
        rest = wall - t["total_s"]
        print(f"  Python start and imports   {rest:7.2f} s")
        print(
            f"  start-up                   {t['startup_s']:7.2f} s   (driver kernel load "
            f"{t['driver_warm_s']:.2f} s, Ray start {t['ray_start_s']:.2f} s, workers start "
            f"and load kernels {t['startup_s'] - t['driver_warm_s'] - t['ray_start_s']:.2f} s)"
        )
        print(
            f"  play and write             {t['play_wall_s']:7.2f} s   "
            f"{played / t['play_wall_s']:10,.0f} games/s (workers ready -> last part written)"
        )
        print(
            f"    kernel, summed over workers   {t['worker_play_s']:7.2f} s   "
            f"{played / t['worker_play_s']:10,.0f} games/s per worker"
        )
        print(f"    Parquet encode, summed        {t['worker_encode_s']:7.2f} s")
        print(f"    driver file writes            {t['write_s']:7.2f} s")
        print(f"  Ray shutdown               {t['shutdown_s']:7.2f} s")
        print(
            "  worker niceness            "
            f"{', '.join(map(str, s.get('worker_niceness', []))) or '?'}   "
            f"(this command: {os.getpriority(os.PRIO_PROCESS, 0)})"
        )

        from experiments.run.config import from_dict
        from experiments.run.runner import ChunkContext, job_of

        cfg = from_dict(
            {
                "game": args.game,
                "players": args.players,
                "agents": ["random"],
                "seats": "fixed",
                "games": args.raw_games,
                "seed": 2026,
                "output": str(tmp),
            },
            "bench",
        )
        ctx = ChunkContext(job_of(cfg))
        ctx.play(0, 1)
        tr = time.perf_counter()
        ctx.play(0, args.raw_games)
        raw = args.raw_games / (time.perf_counter() - tr)
    finally:
        stop_busy(busy)
        shutil.rmtree(tmp, ignore_errors=True)

    load = " under the same contention" if args.contention else ""
    print(
        f"raw kernel{load}: {args.raw_games:,} games in this process, no Ray, no Parquet: "
        f"{raw:,.0f} games/s; x {workers} workers = {raw * workers:,.0f} games/s"
    )
    print(
        f"ratio end to end / raw x {workers}: {played / wall / (raw * workers):.3f}; "
        f"play phase only: {played / t['play_wall_s'] / (raw * workers):.3f}"
    )
    print(
        f"per worker{load}: runner play phase "
        f"{played / t['play_wall_s'] / workers:,.0f} games/s, raw kernel {raw:,.0f} "
        f"games/s: runner / raw = {played / t['play_wall_s'] / workers / raw:.2f}"
    )
    compile_cache.forget_hashes()
    if _cache_key(args.game) != cache_before:
        print(
            "note: the sources changed during the benchmark (new numba cache folder); "
            "the run may have compiled instead of loading kernels"
        )
    return 0

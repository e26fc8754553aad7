"""Engine benchmark: compile / cache-load time, random and heuristic self-play games and
decisions per second on one core for every registered game and player count, and each game's
heuristic against random.

    dynasty bench engines [--seconds S] [--games N] [--game NAME]

Speeds are also given as a ratio to a fixed reference kernel (a Fisher-Yates shuffle loop)
timed in the same process, so figures from different runs on a shared machine compare.
``--clock cpu`` times with the process's CPU time instead of the wall clock: on a machine
busier than its cores, the time the process waited for a core is then left out.
"""

from __future__ import annotations

import argparse
import resource
import time

import numba as nb
import numpy as np
from scipy.stats import binomtest

from agents.arena import HEURISTIC, N_AGENT_PARAMS, RANDOM, play_games
from sim import game_names, get_game
from sim.core import new_rng, shuffle_range


@nb.njit(cache=True)
def _reference(n):
    """The speed reference: ``n`` shuffles of a 62-card deck."""
    deck = np.arange(62).astype(np.int32)
    rng = new_rng(1)
    acc = 0
    for _ in range(n):
        shuffle_range(deck, 0, 62, rng, 0)
        acc += deck[0]
    return acc


_clock = time.perf_counter  # --clock cpu: time.process_time


def reference_rate(seconds: float = 1.0) -> float:
    _reference(10)
    n, t = 10_000, 0.0
    while t < seconds:
        n *= 2
        t0 = _clock()
        _reference(n)
        t = _clock() - t0
    return n / t


def _random_games(spec, n, opt, games, first_seed=0, kind=RANDOM):
    return play_games(spec, np.arange(first_seed, first_seed + games), n, opt,
                      np.zeros((games, n), np.int64), np.array([kind]), np.zeros((1, N_AGENT_PARAMS)))


def random_rate(spec, n, seconds, kind=RANDOM):
    """Random games/s and decisions/s on one core (``kind=HEURISTIC``: heuristic self-play):
    chunks of games (fresh seeds each), sized to take about a tenth of ``seconds``, played
    until ``seconds`` have passed; the fastest chunk's rate is reported (timeit's convention:
    slower chunks measure other work on a shared machine).  Chunks keep the output arrays
    small, as the runner's do."""
    opt = spec.encode_options({})
    games, t = (500 if kind == RANDOM else 1), 0.0
    while t < seconds / 10:
        games *= 2
        t0 = _clock()
        _random_games(spec, n, opt, games, kind=kind)
        t = _clock() - t0
    best, best_dps, spent, first = 0.0, 0.0, 0.0, 0
    while spent < seconds:
        t0 = _clock()
        _, _, _, lengths = _random_games(spec, n, opt, games, first, kind)
        t = _clock() - t0
        spent += t
        first += games
        if games / t > best:
            best, best_dps = games / t, games * float(lengths.mean()) / t
    return best, best_dps, first


def heuristic_vs_random(spec, n, games):
    seat_agent = np.ones((games, n), np.int64)
    seat_agent[np.arange(games), np.arange(games) % n] = 0
    _, wins, _, _ = play_games(spec, np.arange(games) + 10**6, n, spec.encode_options({}), seat_agent,
                               np.array([HEURISTIC, RANDOM]), np.zeros((2, N_AGENT_PARAMS)))
    share = float(wins[np.arange(games), np.arange(games) % n].sum())
    ci = binomtest(int(round(share)), games).proportion_ci(method="wilson")
    return share / games, ci.low, ci.high


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="dynasty bench engines", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    ap.add_argument("--games", type=int, default=10_000, help="games for heuristic vs random")
    ap.add_argument("--game", action="append", help="only these games (default: all)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time by the wall clock (default) or by the process's CPU time (a busy shared machine)")
    ap.add_argument("--no-versus", action="store_true", help="skip the heuristic-against-random table")
    args = ap.parse_args(argv)
    global _clock
    _clock = time.process_time if args.clock == "cpu" else time.perf_counter
    names = args.game or game_names()
    ref = reference_rate()
    print(f"reference kernel: {ref:,.0f} shuffles/s (ratios below are games per 1,000 shuffles)")
    print()
    print("| game | players | compile or cache load (s) | random games/s (1 core) | decisions/s | ratio to reference "
          "| heuristic self-play games/s | decisions/s | ratio to reference | random / heuristic decisions/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        spec = get_game(name)
        for n in spec.players():
            t0 = _clock()
            _random_games(spec, n, spec.encode_options({}), 1)
            _random_games(spec, n, spec.encode_options({}), 1, kind=HEURISTIC)
            first = _clock() - t0
            gps, dps, _ = random_rate(spec, n, args.seconds)
            hgps, hdps, _ = random_rate(spec, n, args.seconds, HEURISTIC)
            print(f"| {name} | {n} | {first:.2f} | {gps:,.0f} | {dps:,.0f} | {1000 * gps / ref:.2f} "
                  f"| {hgps:,.0f} | {hdps:,.0f} | {1000 * hgps / ref:.3f} | {dps / hdps:.1f} |", flush=True)
    if args.no_versus:
        return 0
    print()
    print(f"| game | players | heuristic win rate vs random ({args.games:,} games, seats rotated) | 95% Wilson interval | parity |")
    print("|---|---|---|---|---|")
    for name in names:
        spec = get_game(name)
        for n in spec.players():
            rate, lo, hi = heuristic_vs_random(spec, n, args.games)
            print(f"| {name} | {n} | {rate:.3f} | [{lo:.3f}, {hi:.3f}] | {1 / n:.3f} |", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory: {peak:,.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Engine benchmark: compile / cache-load time, random and heuristic self-play games and
decisions per second on one core for every registered game and player count, and each game's
heuristic against random.

    dynasty bench engines [--seconds S] [--games N] [--game NAME]

Speeds are also given as a ratio to a fixed reference kernel (a Fisher-Yates shuffle loop)
timed in the same process, so figures from different runs on a shared machine compare.
``--clock cpu`` times with the process's CPU time instead of the wall clock: on a machine
busier than its cores, the time the process waited for a core is then left out.  The heuristic's
cost against random play is the ratio of their decisions/s in rounds of one chunk each, played
in turn (:func:`paired_rates`): the median over the rounds, with their range.
"""

from __future__ import annotations

import argparse
import resource
import time

import numba as nb
import numpy as np
from scipy.stats import binomtest

from agents.arena import play_games
from agents.table import HEURISTIC, N_AGENT_PARAMS, RANDOM
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


def self_play_games(spec, n, opt, games, first_seed=0, kind=RANDOM):
    """``games`` games of ``n`` seats all of agent kind ``kind``, seeds ``first_seed`` on:
    :func:`agents.arena.play_games`' results."""
    return play_games(
        spec,
        np.arange(first_seed, first_seed + games),
        n,
        opt,
        np.zeros((games, n), np.int64),
        np.array([kind]),
        np.zeros((1, N_AGENT_PARAMS)),
    )


def chunk_size(spec, n, seconds, kind=RANDOM):
    """The games of a chunk of agent kind ``kind`` that takes about a tenth of ``seconds``
    (doubled from 1,000 or 2 until one does)."""
    opt = spec.encode_options({})
    games, t = (500 if kind == RANDOM else 1), 0.0
    while t < seconds / 10:
        games *= 2
        t0 = _clock()
        self_play_games(spec, n, opt, games, kind=kind)
        t = _clock() - t0
    return games


def paired_rates(spec, n, seconds, kinds=(RANDOM, HEURISTIC)):
    """Games/s and decisions/s on one core of each agent kind in ``kinds`` (RANDOM: random
    play, HEURISTIC: heuristic self-play): chunks of games (fresh seeds each), sized to take
    about a tenth of ``seconds``, one chunk of each kind a round, played until ``seconds`` per
    kind have passed.  Each kind's ``games`` and ``decisions`` are its fastest chunk's
    (timeit's convention: slower chunks measure other work on a shared machine), ``played``
    its games and ``dps`` its chunks' decisions/s; every kind after the first also has its
    ``ratio``: the first kind's decisions/s over its own in each round, as (median, least,
    greatest, rounds).  A round's chunks run within a second of each other, so a machine
    whose speed drifts over the run (a shared host) moves both alike, which the fastest chunks
    of each, taken from different moments, do not.  Chunks keep the output arrays small, as
    the runner's do."""
    opt = spec.encode_options({})
    games = {k: chunk_size(spec, n, seconds, k) for k in kinds}
    out = {k: {"games": 0.0, "played": 0, "spent": 0.0, "dps": []} for k in kinds}
    while min(o["spent"] for o in out.values()) < seconds:
        for k in kinds:
            o = out[k]
            t0 = _clock()
            _, _, _, lengths = self_play_games(spec, n, opt, games[k], o["played"], k)
            t = _clock() - t0
            o["spent"] += t
            o["played"] += games[k]
            o["games"] = max(o["games"], games[k] / t)
            o["dps"].append(float(lengths.sum()) / t)
    for o in out.values():
        o["decisions"] = max(o["dps"])
    first = out[kinds[0]]["dps"]
    for k in kinds[1:]:
        r = np.array(first) / np.array(out[k]["dps"])
        out[k]["ratio"] = (float(np.median(r)), float(r.min()), float(r.max()), len(r))
    return out


def heuristic_vs_random(spec, n, games):
    seat_agent = np.ones((games, n), np.int64)
    seat_agent[np.arange(games), np.arange(games) % n] = 0
    _, wins, _, _ = play_games(
        spec,
        np.arange(games) + 10**6,
        n,
        spec.encode_options({}),
        seat_agent,
        np.array([HEURISTIC, RANDOM]),
        np.zeros((2, N_AGENT_PARAMS)),
    )
    share = float(wins[np.arange(games), np.arange(games) % n].sum())
    ci = binomtest(int(round(share)), games).proportion_ci(method="wilson")
    return share / games, ci.low, ci.high


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench engines``."""
    ap = argparse.ArgumentParser(prog="dynasty bench engines", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timing budget per measurement")
    ap.add_argument("--games", type=int, default=10_000, help="games for heuristic vs random")
    ap.add_argument("--game", action="append", help="only these games (default: all)")
    ap.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time by the wall clock (default) or by the process's CPU time "
        "(a busy shared machine)",
    )
    ap.add_argument(
        "--no-versus", action="store_true", help="skip the heuristic-against-random table"
    )
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    global _clock
    _clock = time.process_time if args.clock == "cpu" else time.perf_counter
    names = args.game or game_names()
    ref = reference_rate()
    print(f"reference kernel: {ref:,.0f} shuffles/s (ratios below are games per 1,000 shuffles)")
    print()
    print(
        "| game | players | compile or cache load (s) | random games/s (1 core) | "
        "decisions/s | ratio to reference | heuristic self-play games/s | decisions/s | "
        "ratio to reference | random / heuristic decisions/s: median over rounds (range) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        spec = get_game(name)
        for n in spec.players():
            t0 = _clock()
            self_play_games(spec, n, spec.encode_options({}), 1)
            self_play_games(spec, n, spec.encode_options({}), 1, kind=HEURISTIC)
            first = _clock() - t0
            rates = paired_rates(spec, n, args.seconds)
            r, h = rates[RANDOM], rates[HEURISTIC]
            med, lo, hi, rounds = h["ratio"]
            print(
                f"| {name} | {n} | {first:.2f} | {r['games']:,.0f} | {r['decisions']:,.0f} | "
                f"{1000 * r['games'] / ref:.2f} | {h['games']:,.0f} | {h['decisions']:,.0f} | "
                f"{1000 * h['games'] / ref:.3f} | {med:.1f} ({lo:.1f}-{hi:.1f}, {rounds} rounds) |",
                flush=True,
            )
    if args.no_versus:
        return 0
    print()
    print(
        f"| game | players | heuristic win rate vs random ({args.games:,} "
        "games, seats rotated) | 95% Wilson interval | parity |"
    )
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

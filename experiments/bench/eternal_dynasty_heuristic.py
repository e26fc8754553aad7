"""Eternal Dynasty heuristic: CPU time per decision by decision kind, against random play.

    dynasty bench eternal_dynasty_heuristic [--players N] [--games N] [--reps N]

Heuristic self-play games are played and every ``EVERY``-th state is kept with the kind of
its decision (the task on top of the stack: the main action, a card's target province, a
Leader's province ...).  The heuristic is then timed on a fresh copy of each kept state
(copied from a copy kept in the cache), ``--reps`` times, less the time of the copies alone
(the least of ``ROUNDS`` timings of each, taken in turn); a kind's share of a decision is its
time per call times its frequency in the games.  Random play of the same game, player count
and number of games (``apply`` and the random pick per decision) is timed in the same
process, so the table reads as multiples of it on a loaded machine too.  CPU time of this
process; where the heuristic spends its time: docs/performance.md ("The Eternal Dynasty
heuristic by decision kind").
"""

from __future__ import annotations

import argparse
import time

import numba as nb
import numpy as np

from experiments.bench.engines import self_play_games
from sim import get_game
from sim.core import new_rng
from sim.eternal_dynasty import heuristic as H
from sim.eternal_dynasty import rules
from sim.eternal_dynasty.rules import tasks
from sim.kinds import constant_names

EVERY = 5
ROUNDS = 3
KINDS = 64  # task kinds (rules.TK_*) are below this


@nb.njit(cache=True)
def collect(games, n, options, out, kinds, counts):
    """Play ``games`` heuristic self-play games; keep every ``EVERY``-th state in ``out`` (as
    many as fit) with its decision kind in ``kinds``; count every decision's kind in
    ``counts``.  Returns how many states were kept."""
    k = 0
    d = 0
    for g in range(games):
        s = rules.new_state(g + 1, n, options)
        rng = new_rng(g + 7)
        while not rules.is_terminal(s):
            kind = s[rules.top(s)]
            counts[kind] += 1
            if d % EVERY == 0 and k < out.shape[0]:
                out[k, :] = s
                kinds[k] = kind
                k += 1
            d += 1
            rules.apply(s, H.heuristic(s, rng))
    return k


@nb.njit(cache=True)
def replay(states, reps, decide):
    """Copy each state of ``states`` into a work state (hot in the cache, as a game's state
    is) and from it ``reps`` times into another, where, with ``decide``, the heuristic
    chooses (a fresh RNG each time)."""
    c0 = states[0].copy()
    c = states[0].copy()
    rng = new_rng(1)
    acc = 0
    for i in range(states.shape[0]):
        c0[:] = states[i]
        for r in range(reps):
            c[:] = c0
            if decide:
                rng[0] = i
                rng[1] = r
                acc += H.heuristic(c, rng)
    return acc


def kind_names() -> dict[int, str]:
    """Task kind -> its name (the ``TK_*`` constants of the rules' task stack, as the game's
    ``decision_kind`` names them)."""
    return constant_names(tasks, "TK_")


def measure(players: int, games: int, reps: int) -> dict:
    """The heuristic's time per call by decision kind, and random play's per decision."""
    spec = get_game("eternal_dynasty")
    spec.check_players(players)
    opt = spec.encode_options({})
    size = rules.new_state(1, players, opt).shape[0]
    cap = max(1, min(40_000, games * 600 // EVERY))
    states = np.zeros((cap, size), np.int32)
    kinds = np.zeros(cap, np.int64)
    counts = np.zeros(KINDS, np.int64)
    collect(
        1, players, opt, states[:1].copy(), kinds[:1].copy(), counts.copy()
    )  # compiled or loaded first
    replay(states[:1], 1, True)
    m = collect(games, players, opt, states, kinds, counts)
    states, kinds = states[:m], kinds[:m]
    decisions = int(counts.sum())
    rows = []
    for kind in np.unique(kinds):
        sel = np.ascontiguousarray(states[kinds == kind])
        t_copy = t_all = np.inf
        for _ in range(ROUNDS):  # the least of each, the copies and the choices timed in turn
            t0 = time.process_time()
            replay(sel, reps, False)
            t_copy = min(t_copy, time.process_time() - t0)
            t0 = time.process_time()
            replay(sel, reps, True)
            t_all = min(t_all, time.process_time() - t0)
        per = (t_all - t_copy) / (reps * len(sel))
        rows.append(
            {
                "kind": int(kind),
                "calls": int(counts[kind]),
                "freq": counts[kind] / decisions,
                "us": per * 1e6,
                "us_per_decision": per * 1e6 * counts[kind] / decisions,
                "sampled": len(sel),
            }
        )
    self_play_games(spec, players, opt, 1, first_seed=1)
    t0 = time.process_time()
    out = self_play_games(spec, players, opt, games, first_seed=1)
    random_us = (time.process_time() - t0) / int(out[3].sum()) * 1e6
    rows.sort(key=lambda r: -r["us_per_decision"])
    return {
        "rows": rows,
        "decisions": decisions,
        "random_us": random_us,
        "heuristic_us": sum(r["us_per_decision"] for r in rows),
    }


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench eternal_dynasty_heuristic``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench eternal_dynasty_heuristic", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--players", type=int, default=4, help="seats (default 4)")
    ap.add_argument(
        "--games", type=int, default=400, help="heuristic games whose states are kept (default 400)"
    )
    ap.add_argument("--reps", type=int, default=3, help="timings per state (default 3)")
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.games < 1 or args.reps < 1:
        parser.error("--games and --reps must be at least 1")
    r = measure(args.players, args.games, args.reps)
    names = kind_names()
    ru = r["random_us"]
    print(
        f"eternal_dynasty, {args.players} players, {args.games} "
        f"heuristic games ({r['decisions']:,} decisions); CPU time; "
        f"random play {ru:.3f} us per decision (apply included)"
    )
    print(
        f"heuristic's choice (apply not included): {r['heuristic_us']:.3f} us per decision "
        f"= {r['heuristic_us'] / ru:.1f}x random play's decision\n"
    )
    print(
        "| decision kind | share of decisions | us per call | us per "
        "decision | share of the heuristic's time | states timed |"
    )
    print("|---|---|---|---|---|---|")
    for row in r["rows"]:
        print(
            f"| {names.get(row['kind'], row['kind'])} | {row['freq']:.3f} | "
            f"{row['us']:.2f} | {row['us_per_decision']:.3f} | "
            f"{row['us_per_decision'] / r['heuristic_us']:.1%} | {row['sampled']:,} |"
        )
    return 0

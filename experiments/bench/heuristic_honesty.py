"""Whether a game's heuristic reads only what its seat may know: the heuristic's action with the
seat's hidden information resampled (the game's ``determinize``) against its action on the true
state, with the same RNG words, and what the difference is worth in play.

An agent kernel is handed the true state and must read only what its seat may know
(agents/user.py). A heuristic that reads more is a stronger baseline than an honest player can
be: a learned policy, whose hint is the heuristic in a resampled world (agents/policy.py), and a
search, whose rollouts play in sampled worlds, are measured against it. Two figures, on 4-player
(``--players``) heuristic self-play of ``--deals`` deals:

- *changed*: of the decisions of every seat, the share whose action changes when the mover's
  hidden information is resampled (one resample each; the tie-breaks drawn from the same words);
- *worth*: each deal is played once per seat with that seat taking its actions in a copy
  resampled from its information set (its own resampling stream; its heuristic RNG as in the
  game without it), and once with the plain heuristic everywhere. The games are the same until
  the first changed action (*games that differ*); the seat's win share in the resampled games
  minus the plain ones, averaged over seats, is the worth, with its 95% bootstrap interval over
  deals. A negative worth is what reading the hidden information gains the heuristic.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numba as nb
import numpy as np

from sim import get_game
from sim.core import H_CURRENT, as_kernels, entry, hash64, new_rng

GAMES = ["middle_kingdom", "ming_dynasty", "emperors_choice", "eternal_dynasty"]
RESAMPLE_KEY = 0x4E57  # the resampling streams' key: hash64(deal seed, RESAMPLE_KEY + seat)


@dataclass(frozen=True)
class Honesty:
    """``decisions`` compared, the share ``changed``; ``games`` played resampled (deals x
    seats), the share that ``differ`` from the plain game, and the seat's mean win share
    resampled minus plain (``worth``) with its 95% interval over deals (``low``, ``high``)."""

    decisions: int
    changed: float
    games: int
    differ: float
    worth: float
    low: float
    high: float


@entry(
    nb.int64,
    nb.int64,
    nb.int32[::1],
    nb.int64,
    nb.float64[::1],
    nb.int64[::1],
    returns=nb.boolean,
)
def paired_game(K, deal, players, options, seat, wins, counts):
    """Play the heuristic self-play game of ``deal``; with ``seat`` >= 0 that seat acts in
    copies resampled from its information set. Its win shares go to ``wins``. Every decision
    of the plain game (``seat`` < 0) is also compared with the mover's action in a resampled
    copy (same RNG words): ``counts[0]`` += compared, ``counts[1]`` += changed. True if the
    game took an action the plain heuristic would not have."""
    G = as_kernels(K)
    s = G.new_state(deal, players, options)
    rngs = np.zeros(2 * players, np.int32)
    for q in range(players):
        rngs[2 * q : 2 * q + 2] = new_rng(hash64(deal, q + 1))
    resample = new_rng(hash64(deal, RESAMPLE_KEY + max(seat, 0)))
    differs = False
    while not G.is_terminal(s):
        p = s[H_CURRENT]
        rng = rngs[2 * p : 2 * p + 2]
        if seat >= 0 and p != seat:
            G.apply(s, G.heuristic(s, rng))
            continue
        w = s.copy()
        G.determinize(w, p, resample)
        honest_rng = rng.copy()  # the mover's RNG as it is after deciding in the copy
        honest = G.heuristic(w, honest_rng)
        if seat >= 0 and differs:  # the seat decides in the copy from now on
            a = honest
            rng[:] = honest_rng
        else:
            a = G.heuristic(s, rng)
            if seat < 0:
                counts[0] += 1
                counts[1] += honest != a
            elif honest != a:  # the seat's first changed action
                a = honest
                rng[:] = honest_rng
                differs = True
        G.apply(s, a)
    scores = np.zeros(players)
    G.returns(s, scores, wins)
    return differs


def honesty(game: str, players: int, deals: int, seed: int) -> Honesty:
    """The two figures (module docstring) on ``deals`` deals drawn from ``seed``."""
    from experiments.train.gate import bootstrap_interval

    spec = get_game(game)
    spec.check_players(players)
    K = tuple(spec.kernels)
    opts = spec.encode_options({})
    counts = np.zeros(2, np.int64)
    plain, resampled = np.zeros(players), np.zeros(players)
    per_deal = np.zeros(deals)
    differ = 0
    n = np.int64(players)
    for d in range(deals):
        deal = np.int64(hash64(seed, d))
        paired_game(K, deal, n, opts, np.int64(-1), plain, counts)
        for seat in range(players):
            differ += paired_game(K, deal, n, opts, np.int64(seat), resampled, counts)
            per_deal[d] += (resampled[seat] - plain[seat]) / players
    low, high = bootstrap_interval(per_deal, seed)
    return Honesty(
        int(counts[0]),
        float(counts[1] / max(counts[0], 1)),
        deals * players,
        differ / (deals * players),
        float(per_deal.mean()),
        low,
        high,
    )


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench heuristic_honesty``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench heuristic_honesty", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--game", action="append", help=f"only these games (default: {', '.join(GAMES)})"
    )
    ap.add_argument("--players", type=int, default=4, help="players")
    ap.add_argument("--deals", type=int, default=1000, help="deals per game")
    ap.add_argument("--seed", type=int, default=1, help="master seed")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.deals < 2:
        ap.error("--deals must be at least 2")
    print(
        "game | players | decisions | changed when resampled | games resampled | "
        "games that differ | worth of the resample (95% CI)"
    )
    for game in args.game or GAMES:
        try:
            h = honesty(game, args.players, args.deals, args.seed)
        except (KeyError, ValueError) as e:
            ap.error(str(e))
        print(
            f"{game} | {args.players} | {h.decisions:,} | {h.changed:.4f} | {h.games:,} | "
            f"{h.differ:.3f} | {h.worth:+.4f} [{h.low:+.4f}, {h.high:+.4f}]",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Goofspiel side by side with OpenSpiel: rules parity and speed, in one run.

    .venv/bin/python -m experiments.bench.openspiel            # the figures of docs/performance.md
    dynasty bench openspiel --games 20000 --sims 5000          # a quicker run

**Rules parity.**  Random against random on goofspiel with 13 cards (random point order),
2 and 3 players, ``--games`` games in each engine.  Both engines report final points
(``returns_type = total_points``); the same summary is computed from both: the share of
games each seat wins alone, the share with a tie for the top, and each seat's mean point
difference (points minus the mean, OpenSpiel's ``point_difference`` return).  Each pair of
figures is compared by a two-sample z score, and the outcome categories by a chi-square
test of the 2 x k contingency table; sampling error alone gives |z| < 3 and p > 0.001
almost always.

**Speed.**  Random games per second: ours (the arena kernel, random agents, one core)
against OpenSpiel's C++ game loop (``pyspiel.evaluate_bots`` with uniform random bots, one
call per game).  MCTS simulations per second at the same root (2 players, 13 cards, first
point card 7) with random rollouts: ours against OpenSpiel's C++ ``MCTSBot`` with a
``RandomRolloutEvaluator`` (one rollout per leaf) on the turn-based form of goofspiel,
which OpenSpiel's MCTS requires.  UCT constants are equivalent (OpenSpiel 2 on returns in
[-1, 1], ours 1 on rewards in [0, 1]).  Ours does more per simulation (rewind, a
determinization, a hash lookup per node); OpenSpiel's is a perfect-information search.
Each speed figure is the best of ``--repeats`` timings; ratios are ours / OpenSpiel's.

**Strength.**  A match on goofspiel with 13 cards, 2 players: OpenSpiel's ``MCTSBot``
(default ``uct_c = 2``, random rollouts) against our MCTS (default settings), the same
number of simulations per decision (``--match-sims``), ``--match-games`` games.  Our
engine deals the point cards and OpenSpiel's state follows every move, so both see the
same game (their returns are checked to agree at the end).  OpenSpiel's bot always bids
first in the turn-based form, so it never sees our face-down bid; our search bids second
and does not look at OpenSpiel's (it rewinds the round).  Goofspiel's rules give the two
seats equal chances.  Reported: our mean win share with its 95% interval.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats

NUM_CARDS = 13
ROOT_POINT_CARD = 7
OPENSPIEL_UCT_C = 2.0  # on returns in [-1, 1]
OUR_UCT_C = OPENSPIEL_UCT_C / 2  # the same exploration on rewards in [0, 1]
OPENSPIEL_MAX_MEMORY_MB = 4000
MASTER_SEED = 20261129


def outcome_summary(points: np.ndarray) -> dict:
    """Per-game final points ``[games, n]`` -> categories and per-seat point differences."""
    points = np.asarray(points, np.float64)
    games, n = points.shape
    top = points.max(axis=1, keepdims=True)
    at_top = points == top
    sole = at_top.sum(axis=1) == 1
    counts = [int(np.sum(sole & at_top[:, p])) for p in range(n)] + [int(np.sum(~sole))]
    diff = points - points.mean(axis=1, keepdims=True)
    return {
        "games": games,
        "counts": counts,  # seat p wins alone (p = 0..n-1), then: a tie for the top
        "point_diff_mean": diff.mean(axis=0).tolist(),
        "point_diff_sd": diff.std(axis=0, ddof=1).tolist(),
    }


def our_random_points(n_players: int, games: int, seed: int) -> tuple[np.ndarray, float]:
    """Final points of ``games`` random games in our engine, and the seconds they took."""
    from agents.arena import play_games
    from agents.table import RANDOM
    from sim.core import game_seed
    from sim.registry import get_game

    spec = get_game("goofspiel")
    opt = spec.encode_options({"num_cards": NUM_CARDS, "returns_type": "total_points"})
    seeds = np.array([game_seed(seed, i) for i in range(games)], np.int64)
    seat_agent = np.zeros((games, n_players), np.int64)
    kinds = np.array([RANDOM], np.int64)
    params = np.zeros((1, 8))
    play_games(spec, seeds[:10], n_players, opt, seat_agent[:10], kinds, params)  # compile
    t0 = time.perf_counter()
    scores, _, _, _ = play_games(spec, seeds, n_players, opt, seat_agent, kinds, params)
    return scores, time.perf_counter() - t0


def openspiel_random_points(n_players: int, games: int, seed: int) -> tuple[np.ndarray, float]:
    """The same in OpenSpiel: ``evaluate_bots`` (a C++ game loop) once per game."""
    import pyspiel

    game = pyspiel.load_game(
        "goofspiel", {"num_cards": NUM_CARDS, "players": n_players, "returns_type": "total_points"}
    )
    bots = [pyspiel.make_uniform_random_bot(p, seed + 1 + p) for p in range(n_players)]
    out = np.zeros((games, n_players))
    t0 = time.perf_counter()
    for i in range(games):
        out[i] = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
    return out, time.perf_counter() - t0


def compare(ours: dict, theirs: dict) -> dict:
    """z scores of every figure, and the chi-square p value of the outcome categories."""
    n1, n2 = ours["games"], theirs["games"]
    z = {}
    labels = [f"P{p} wins alone" for p in range(len(ours["counts"]) - 1)] + ["tie for the top"]
    for label, c1, c2 in zip(labels, ours["counts"], theirs["counts"]):
        p1, p2 = c1 / n1, c2 / n2
        pooled = (c1 + c2) / (n1 + n2)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z[label] = (p1, p2, (p1 - p2) / se if se > 0 else 0.0)
    for p, (m1, s1, m2, s2) in enumerate(
        zip(
            ours["point_diff_mean"],
            ours["point_diff_sd"],
            theirs["point_diff_mean"],
            theirs["point_diff_sd"],
        )
    ):
        se = np.sqrt(s1**2 / n1 + s2**2 / n2)
        z[f"P{p} mean point difference"] = (m1, m2, (m1 - m2) / se if se > 0 else 0.0)
    chi2 = stats.chi2_contingency(np.array([ours["counts"], theirs["counts"]]))
    return {"z": z, "chi2_p": float(chi2.pvalue)}


def parity(n_players: int, games: int, seed: int = MASTER_SEED) -> dict:
    pts_ours, t_ours = our_random_points(n_players, games, seed)
    pts_theirs, t_theirs = openspiel_random_points(n_players, games, seed)
    ours, theirs = outcome_summary(pts_ours), outcome_summary(pts_theirs)
    return {
        "players": n_players,
        "games": games,
        "ours": ours,
        "openspiel": theirs,
        "compare": compare(ours, theirs),
        "games_per_s": (games / t_ours, games / t_theirs),
    }


def our_mcts_sims_per_s(sims: int, repeats: int) -> float:
    from agents.mcts import mcts_params, search_root
    from sim.goofspiel import view
    from sim.registry import get_game

    spec = get_game("goofspiel")
    opt = spec.encode_options({"num_cards": NUM_CARDS})
    root = view.state_from_chance(2, opt, [ROOT_POINT_CARD])
    params = mcts_params(sims, uct_c=OUR_UCT_C)
    search_root(spec, root, mcts_params(10, uct_c=OUR_UCT_C), 0)  # compile
    best = np.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        search_root(spec, root, params, MASTER_SEED + r)
        best = min(best, time.perf_counter() - t0)
    return sims / best


def openspiel_mcts_sims_per_s(sims: int, repeats: int) -> float:
    import pyspiel

    game = pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", {"num_cards": NUM_CARDS, "players": 2})
    )
    root = game.new_initial_state()
    root.apply_action(ROOT_POINT_CARD - 1)  # chance: the first point card
    best = np.inf
    for r in range(repeats):
        evaluator = pyspiel.RandomRolloutEvaluator(1, MASTER_SEED + r)
        bot = pyspiel.MCTSBot(
            game,
            evaluator,
            OPENSPIEL_UCT_C,
            sims,
            OPENSPIEL_MAX_MEMORY_MB,
            False,
            MASTER_SEED + r,
            False,
        )
        t0 = time.perf_counter()
        bot.step(root)
        best = min(best, time.perf_counter() - t0)
    return sims / best


def match_against_openspiel(games: int, sims: int, seed: int = MASTER_SEED) -> dict:
    """Our MCTS (seat 1) against OpenSpiel's MCTSBot (seat 0), ``sims`` simulations each."""
    import pyspiel

    from agents.mcts import mcts_params, search_root
    from sim.core import hash64
    from sim.game import Game
    from sim.goofspiel import rules as R
    from sim.registry import get_game

    game = pyspiel.convert_to_turn_based(
        pyspiel.load_game("goofspiel", {"num_cards": NUM_CARDS, "players": 2})
    )
    params = mcts_params(sims)
    search_root(get_game("goofspiel"), Game("goofspiel", 2).state, mcts_params(10), 0)  # compile
    shares = np.zeros(games)
    seconds = [0.0, 0.0]  # ours, OpenSpiel's
    for g in range(games):
        ours = Game("goofspiel", 2, seed=int(hash64(seed, g)), options={"num_cards": NUM_CARDS})
        state = game.new_initial_state()
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(1, seed + g),
            OPENSPIEL_UCT_C,
            sims,
            OPENSPIEL_MAX_MEMORY_MB,
            False,
            seed + g,
            False,
        )
        decision = 0
        while not ours.is_over:
            while state.is_chance_node():
                state.apply_action(int(ours.state[R.PRIZE]))
            t0 = time.perf_counter()
            theirs = bot.step(state)
            seconds[1] += time.perf_counter() - t0
            state.apply_action(theirs)
            ours.apply(int(theirs))
            t0 = time.perf_counter()
            mine, _, _ = search_root(ours.spec, ours.state, params, int(hash64(seed + g, decision)))
            seconds[0] += time.perf_counter() - t0
            state.apply_action(mine)
            ours.apply(mine)
            decision += 1
        if not state.is_terminal() or list(state.returns()) != ours.scores:
            raise RuntimeError(
                f"game {g}: the engines disagree ({state.returns()} against {ours.scores})"
            )
        shares[g] = ours.win_shares[1]
    half = 1.96 * shares.std(ddof=1) / np.sqrt(games)
    return {
        "games": games,
        "sims": sims,
        "share": float(shares.mean()),
        "half_width": float(half),
        "seconds": seconds,
    }


def _fmt_parity(res: dict) -> list[str]:
    lines = [
        f"rules parity, {res['players']} players, {res['games']:,} random games per engine "
        f"(chi-square p = {res['compare']['chi2_p']:.3f})",
        f"  {'figure':28s} {'ours':>9s} {'OpenSpiel':>9s} {'z':>6s}",
    ]
    for label, (a, b, z) in res["compare"]["z"].items():
        lines.append(f"  {label:28s} {a:9.4f} {b:9.4f} {z:6.2f}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench openspiel``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench openspiel", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--games", type=int, default=100_000, help="random games per engine and player count"
    )
    ap.add_argument("--sims", type=int, default=20_000, help="MCTS simulations per timed search")
    ap.add_argument(
        "--repeats", type=int, default=3, help="timings per speed figure (best is kept)"
    )
    ap.add_argument(
        "--match-games", type=int, default=400, help="games of the match against OpenSpiel's MCTS"
    )
    ap.add_argument(
        "--match-sims", type=int, default=1000, help="simulations per decision in the match"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv if argv is not None else sys.argv[1:])
    try:
        import pyspiel
    except ImportError:
        print("open-spiel is not installed (pip install -e '.[dev]')")
        return 1
    print(
        f"OpenSpiel {getattr(pyspiel, '__version__', '?')}, "
        f"goofspiel {NUM_CARDS} cards, random points order"
    )
    speeds = {}
    for n in (2, 3):
        res = parity(n, args.games)
        print("\n".join(_fmt_parity(res)), flush=True)
        speeds[n] = res["games_per_s"]
    print("random games per second (one core)")
    for n, (ours, theirs) in speeds.items():
        print(
            f"  {n} players: ours {ours:,.0f}, OpenSpiel C++ "
            f"loop {theirs:,.0f}, ratio {ours / theirs:.1f}x"
        )
    ours = our_mcts_sims_per_s(args.sims, args.repeats)
    theirs = openspiel_mcts_sims_per_s(args.sims, args.repeats)
    print(
        f"MCTS simulations per second, random rollouts, {args.sims:,} simulations "
        f"from the same root (2 players, point card {ROOT_POINT_CARD} up)"
    )
    print(
        f"  ours (IS-MCTS) {ours:,.0f}, OpenSpiel C++ "
        f"MCTSBot {theirs:,.0f}, ratio {ours / theirs:.1f}x"
    )
    if args.match_games > 0:
        m = match_against_openspiel(args.match_games, args.match_sims)
        print(
            f"match, {m['games']} games, {m['sims']:,} simulations per decision each: our MCTS "
            f"wins {m['share']:.3f} +- {m['half_width']:.3f} (95%) against OpenSpiel's MCTSBot; "
            f"search time ours {m['seconds'][0]:.1f} s, OpenSpiel {m['seconds'][1]:.1f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

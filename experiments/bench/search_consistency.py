"""How sure a search is of its choice: the same position searched twice with different seeds, on
positions of heuristic self-play, and how often the two most visited actions agree; where the
first search departs from the heuristic's action, how often the second makes the same departure.

A search's departures from the heuristic are what expert iteration teaches a hint model
(docs/training.md). A departure that an independent search repeats only now and then is noise
in the targets, and no network learns it from the observation: this benchmark measures that
before a training is spent on it. Positions are those of the heuristic in every seat, each
decision with a choice kept with probability ``--rate``; the searches see only the mover's
information set, as in play.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from agents.mcts import P_NET, search_root
from agents.spec import MCTS, AgentSpecError, parse_agent
from sim import get_game
from sim.core import hash64, new_rng

GAMES = ["ming_dynasty", "eternal_dynasty"]
SEARCHES = [
    "mcts:100,prior=1",
    "mcts:400,prior=1",
    "mcts:100,rollout=heuristic,rollout_depth=20,prior=1",
    "mcts:400,rollout=heuristic,rollout_depth=20,prior=1",
]


@dataclass(frozen=True)
class Consistency:
    """Shares over ``states`` positions: ``agree``, the two searches' most visited actions are
    the same; ``departs``, the first search's is not the heuristic's; ``repeated``, of those
    departures, the second search's is the same action (nan without departures)."""

    states: int
    agree: float
    departs: float
    repeated: float


def search_params(label: str) -> np.ndarray:
    """The parameters of an MCTS agent without a network; :class:`AgentSpecError` otherwise."""
    kind, params, _ = parse_agent(label)
    if kind != MCTS or params[P_NET] > 0:
        raise AgentSpecError(f"a search without a network is needed here, got {label!r}")
    return params


def consistency(
    game: str, label: str, players: int, states: int, seed: int, rate: float = 0.05
) -> Consistency:
    """Search ``states`` positions of heuristic self-play of ``game`` twice each with the MCTS
    agent ``label``; the positions, the heuristic's actions and the searches' seeds are all drawn
    from ``seed``, so the figures are a function of the arguments."""
    params = search_params(label)
    spec = get_game(game)
    spec.check_players(players)
    k = spec.kernels
    opts = spec.encode_options({})
    keep = np.random.default_rng(seed)
    mask = np.zeros(spec.num_actions, np.bool_)
    agree = departs = repeated = done = 0
    searches = hash64(seed, 2)  # the searches' seeds: a key no deal's seed uses

    def most_visited(state, key):  # the search and the heuristic only read the state
        return int(search_root(spec, state, params, hash64(searches, key))[1].argmax())

    deal = 0
    while done < states:
        deal += 1
        state = k.new_state(np.int64(hash64(seed, 3 * deal)), np.int64(players), opts)
        rng = new_rng(np.int64(hash64(seed, 3 * deal + 1)))
        while not k.is_terminal(state) and done < states:
            hint = int(k.heuristic(state, rng))
            k.legal_mask(state, mask)
            if mask.sum() > 1 and keep.random() < rate:
                first, second = (most_visited(state, 2 * done + j) for j in (0, 1))
                done += 1
                agree += first == second
                if first != hint:
                    departs += 1
                    repeated += first == second
            k.apply(state, hint)
    return Consistency(
        done, agree / done, departs / done, repeated / departs if departs else float("nan")
    )


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``dynasty bench search_consistency``."""
    ap = argparse.ArgumentParser(
        prog="dynasty bench search_consistency", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--game", action="append", help=f"only these games (default: {', '.join(GAMES)})"
    )
    ap.add_argument(
        "--search",
        action="append",
        help="MCTS agents without a network (default: 100 and 400 simulations with the "
        "heuristic's prior, with random and with cut heuristic rollouts)",
    )
    ap.add_argument("--players", type=int, default=4, help="players")
    ap.add_argument("--states", type=int, default=120, help="positions per game and search")
    ap.add_argument("--rate", type=float, default=0.05, help="share of decisions kept as positions")
    ap.add_argument("--seed", type=int, default=1, help="master seed")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.states < 1 or not 0 < args.rate <= 1:
        ap.error("--states must be at least 1 and --rate in (0, 1]")
    searches = args.search or SEARCHES
    try:
        for label in searches:
            search_params(label)
    except AgentSpecError as e:
        ap.error(str(e))
    print(
        "game | search | positions | two searches agree | departs from the heuristic | "
        "departure repeated"
    )
    for game in args.game or GAMES:
        for label in searches:
            try:
                c = consistency(game, label, args.players, args.states, args.seed, args.rate)
            except (KeyError, ValueError) as e:
                ap.error(str(e))
            print(
                f"{game} | `{label}` | {c.states} | {c.agree:.2f} | {c.departs:.2f} | "
                f"{c.repeated:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

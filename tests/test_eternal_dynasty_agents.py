"""Eternal Dynasty agents: the heuristic beats random at every player count (fixed seeds)."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import HEURISTIC, N_AGENT_PARAMS, RANDOM, play_games
from sim import get_game

SPEC = get_game("eternal_dynasty")


@pytest.mark.parametrize("n,options", [(3, {}), (4, {}), (5, {}), (3, {"length": "long3"}), (4, {"coins": "off"})])
def test_heuristic_beats_random(n, options):
    games = 300
    seat_agent = np.full((games, n), 1, np.int64)  # agent 1 = random
    seat_agent[np.arange(games), np.arange(games) % n] = 0  # agent 0 = heuristic, rotating seats
    kinds = np.array([HEURISTIC, RANDOM])
    _, wins, _, _ = play_games(SPEC, np.arange(games) + 700 * n, n, SPEC.encode_options(options), seat_agent,
                               kinds, np.zeros((2, N_AGENT_PARAMS)))
    share = wins[np.arange(games), np.arange(games) % n].sum()
    # the 95% Wilson interval of the heuristic's win rate must exclude parity (1/n)
    low = binomtest(int(round(share)), games).proportion_ci(method="wilson").low
    assert low > 1 / n, f"{n}p: heuristic wins {share / games:.3f}, interval low {low:.3f}"


def test_every_search_reaches_the_searchers_own_node():
    """MCTS reads its decision at ``info_key(root, me)``: if the key changed under
    ``determinize`` (covering something the searcher cannot see), or a rewound round did not
    lead back to the same key, simulations would miss that node and play at random."""
    from agents.mcts import mcts_params, search_root
    from sim import Game

    n, sims = 3, 40
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(2):
        g = Game("eternal_dynasty", players=n, seed=seed)
        while not g.is_over:
            if rng.random() < 0.08:
                _, visits, _ = search_root(SPEC, g.state, mcts_params(sims, rollout_depth=5), seed)
                assert visits.sum() >= sims - n, g.render()
                checked += 1
            acts = g.legal_actions()
            g.apply(acts[int(rng.integers(len(acts)))])
    assert checked > 20

"""The strength ladder on Middle Kingdom with 4 players: MCTS > heuristic > random.

Parity with 4 seats is a win share of 1/4.  Bounds as in tests/test_mcts.py: a win share
lies in [0, 1], so the 95% half-width of a mean over N games is at most 1.96 / (2 sqrt(N)).
Middle Kingdom provides ``info_key`` and ``rewind_secrets``; the last test checks that the
two agree with ``determinize`` and ``apply`` (see docs/mcts.md).
"""

from sim import get_game
from tests.test_mcts import HEURISTIC, MCTS, RANDOM, agent, half_width, mean_share

MK = get_game("middle_kingdom")
PLAYERS = 4
PARITY = 1 / PLAYERS


def test_heuristic_beats_random():
    n = 200
    share = mean_share(MK, PLAYERS, [agent(HEURISTIC)] + [agent(RANDOM)] * 3, n, seed=201)
    assert share - half_width(n) > PARITY


def test_mcts_beats_the_heuristic():
    n = 100
    share = mean_share(
        MK, PLAYERS, [agent(MCTS, simulations=200)] + [agent(HEURISTIC)] * 3, n, seed=203
    )
    assert share - half_width(n) > PARITY


def test_mcts_gets_stronger_with_its_budget():
    n = 80
    share = mean_share(
        MK, PLAYERS, [agent(MCTS, simulations=300)] + [agent(MCTS, simulations=30)] * 3, n, seed=204
    )
    assert share - half_width(n) > PARITY


def test_every_search_reaches_the_searchers_own_node():
    """The searcher's decision is read at its node ``info_key(root, me)``: if the game's key
    changed under ``determinize`` (covering something the searcher cannot see), or a rewound
    round replayed did not lead back to the same key (say the ply differs), simulations
    would miss that node and the search would silently play at random."""
    import numpy as np

    from agents.mcts import mcts_params, search_root
    from sim import Game

    sims = 100
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3):
        g = Game("middle_kingdom", players=PLAYERS, seed=seed)
        while not g.is_over:
            if rng.random() < 0.1:
                _, visits, _ = search_root(MK, g.state, mcts_params(sims), seed)
                assert visits.sum() >= sims - PLAYERS, g.render()
                checked += 1
            acts = g.legal_actions()
            g.apply(acts[int(rng.integers(len(acts)))])
    assert checked > 20

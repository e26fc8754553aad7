"""The strength ladder on Middle Kingdom with 4 players: MCTS > heuristic > random.

Parity with 4 seats is a win share of 1/4.  Bounds as in tests/test_mcts.py: a win share
lies in [0, 1], so the 95% half-width of a mean over N games is at most 1.96 / (2 sqrt(N)).
Middle Kingdom provides ``info_key`` but not ``rewind_secrets``, so its searches resample
earlier face-down commits with ``determinize`` (see docs/mcts.md).
"""

from tests.test_mcts import HEURISTIC, MCTS, RANDOM, agent, half_width, mean_share

from sim import get_game

MK = get_game("middle_kingdom")
PLAYERS = 4
PARITY = 1 / PLAYERS


def test_heuristic_beats_random():
    n = 200
    share = mean_share(MK, PLAYERS, [agent(HEURISTIC)] + [agent(RANDOM)] * 3, n, seed=201)
    assert share - half_width(n) > PARITY


def test_mcts_beats_the_heuristic():
    n = 100
    share = mean_share(MK, PLAYERS, [agent(MCTS, simulations=200)] + [agent(HEURISTIC)] * 3, n, seed=203)
    assert share - half_width(n) > PARITY


def test_mcts_gets_stronger_with_its_budget():
    n = 80
    share = mean_share(MK, PLAYERS, [agent(MCTS, simulations=300)] + [agent(MCTS, simulations=30)] * 3, n, seed=204)
    assert share - half_width(n) > PARITY

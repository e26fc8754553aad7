"""Middle Kingdom agents: the heuristic beats random at every player count (fixed seeds)."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import play_games
from agents.table import HEURISTIC, N_AGENT_PARAMS, RANDOM
from sim import get_game

SPEC = get_game("middle_kingdom")


@pytest.mark.parametrize(
    "n,options", [(2, {}), (3, {}), (3, {"variant": "advanced"}), (4, {}), (5, {})]
)
def test_heuristic_beats_random(n, options):
    games = 1000
    seat_agent = np.full((games, n), 1, np.int64)  # agent 1 = random
    seat_agent[np.arange(games), np.arange(games) % n] = 0  # agent 0 = heuristic, rotating seats
    kinds = np.array([HEURISTIC, RANDOM])
    _, wins, _, _ = play_games(
        SPEC,
        np.arange(games) + 500 * n,
        n,
        SPEC.encode_options(options),
        seat_agent,
        kinds,
        np.zeros((2, N_AGENT_PARAMS)),
    )
    share = wins[np.arange(games), np.arange(games) % n].sum()
    # the 95% Wilson interval of the heuristic's win rate must exclude parity (1/n)
    low = binomtest(int(round(share)), games).proportion_ci(method="wilson").low
    assert low > 1 / n, f"{n}p: heuristic wins {share / games:.3f}, interval low {low:.3f}"

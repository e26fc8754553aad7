"""Eternal Dynasty agents: the heuristic beats random at every player count (fixed seeds).
With 2 players a game the Eternal Emperor wins counts as a loss for both seats, so the
heuristic must beat parity (1/2) despite the Emperor's share."""

import numpy as np
import pytest
from scipy.stats import binomtest

from agents.arena import HEURISTIC, N_AGENT_PARAMS, RANDOM, play_games
from sim import get_game

SPEC = get_game("eternal_dynasty")


@pytest.mark.parametrize("n,options", [(2, {}), (3, {}), (4, {}), (5, {}), (3, {"length": "long3"}), (4, {"coins": "off"})])
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


@pytest.mark.parametrize("n", [3, 2])
def test_every_search_reaches_the_searchers_own_node(n):
    """MCTS reads its decision at ``info_key(root, me)``: if the key changed under
    ``determinize`` (covering something the searcher cannot see), or a rewound round did not
    lead back to the same key, simulations would miss that node and play at random."""
    from agents.mcts import mcts_params, search_root
    from sim import Game

    sims = 40
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


def test_search_through_a_two_player_bid_reaches_the_searchers_own_nodes():
    """2 players: the caller picks and bids after the other seat's secret bid (hidden from its
    info_key, resampled by determinize), then the bid winner declares the Emperor's vote."""
    from agents.mcts import mcts_params, search_root
    from sim.eternal_dynasty import layout as L
    from sim.eternal_dynasty import rules as R
    from sim.eternal_dynasty.scenario import position, turn

    k = SPEC.kernels
    s = position(2, votes=[["CENSUS"], []], first=0, board={(0, "Hunan"): (1, 1), (1, "Hubei"): (1, 1)})
    turn(s, 0)
    k.apply(s, L.A_NUM + 0)  # seat 0 calls; seat 1 picks and bids 4
    k.apply(s, L.A_AYE)
    k.apply(s, L.A_NUM + 4)
    seen = []
    while s[L.G_VOTE_STAGE] == 0:
        seen.append(int(s[R.top(s)]))
        _, visits, _ = search_root(SPEC, s, mcts_params(60, rollout_depth=5), 1)
        assert visits.sum() >= 58
        k.apply(s, int(np.argmax(visits)))
    assert seen[:2] == [R.TK_AYENAY, R.TK_BID] and R.TK_EE_VOTE in seen


def test_search_at_dongs_optional_gain_and_xuns_first_roll_reaches_the_searchers_node():
    """The decision points of two rulings: Dong's start-of-turn gain (skip, or its type) and
    Xun's choice for his first roll while the second is still to be rolled (determinize
    reseeds the chance stream, so no simulation knows that roll in advance)."""
    from agents.mcts import mcts_params, search_root
    from sim.eternal_dynasty import layout as L
    from sim.eternal_dynasty import rules as R
    from sim.eternal_dynasty.scenario import position, run_task, turn

    s = position(3, rulers=["Dong the Reformer"], board={(0, "Guangxi"): (1, 0), (1, "Hunan"): (1, 1),
                                                         (2, "Hubei"): (1, 0)})
    turn(s, 0)
    assert s[R.top(s)] == R.TK_DONG
    a, visits, _ = search_root(SPEC, s, mcts_params(60, rollout_depth=5), 1)
    assert visits.sum() >= 58 and a in (L.A_SKIP, L.A_TYPE, L.A_TYPE + 1)
    s = position(3, rulers=["Xun, Twice-Blessed"])
    run_task(s, R.TK_ARC, 0)
    o = R.top(s)
    assert s[o] == R.TK_TARGET and s[o - L.TASK_SIZE] == R.TK_XUN  # the second roll waits below
    _, visits, _ = search_root(SPEC, s, mcts_params(60, rollout_depth=5), 1)
    assert visits.sum() >= 58

"""The one MCTS: determinism, budget, no peeking at secret choices, and a strength ladder.

Statistical tests use fixed seeds and a bound derived from the sample size alone: a win
share lies in [0, 1], so its standard deviation is at most 1/2 and the 95% half-width of
a mean over N games is at most 1.96 / (2 sqrt(N)).
"""

import math

import numba as nb
import numpy as np
import pytest

from agents.arena import play_games
from agents.mcts import MCTSParameterError, mcts_label, mcts_params, search, search_root
from agents.net import no_nets
from agents.table import HEURISTIC, MCTS, N_AGENT_PARAMS, RANDOM
from sim import Game, get_game
from sim.core import game_seed, hash64, new_rng
from sim.goofspiel import rules as GR

GOOF = get_game("goofspiel")
Z95 = 1.96


def half_width(n_games: int) -> float:
    return Z95 * 0.5 / math.sqrt(n_games)


def agent(kind, **mcts):
    return kind, (mcts_params(**mcts) if kind == MCTS else np.zeros(N_AGENT_PARAMS))


def mean_share(spec, n_players, agents, games, seed, options=None):
    """Mean win share of ``agents[0]`` over ``games`` games; the lineup ``agents`` (one per
    seat) is rotated through the seats game by game, so every agent sits everywhere."""
    kinds = np.array([k for k, _ in agents], np.int64)
    params = np.array([p for _, p in agents])
    seat_agent = np.array(
        [[(p - g) % n_players for p in range(n_players)] for g in range(games)], np.int64
    )
    seeds = np.array([game_seed(seed, g) for g in range(games)], np.int64)
    opt = spec.encode_options(options or {})
    _, wins, _, _ = play_games(spec, seeds, n_players, opt, seat_agent, kinds, params)
    seat_of_agent0 = np.argmax(seat_agent == 0, axis=1)
    return float(wins[np.arange(games), seat_of_agent0].mean())


# ----------------------------------------------------------------------------- basics


def test_same_seed_same_search_and_other_seeds_differ():
    g = Game("goofspiel", players=3, seed=8)
    p = mcts_params(500)
    a1, v1, q1 = search_root(GOOF, g.state, p, 1)
    a2, v2, q2 = search_root(GOOF, g.state, p, 1)
    assert a1 == a2 and np.array_equal(v1, v2) and np.array_equal(q1, q2)
    _, v3, _ = search_root(GOOF, g.state, p, 2)
    assert not np.array_equal(v1, v3)


def test_budget_is_simulations_and_only_legal_actions_are_visited():
    g = Game("goofspiel", players=2, seed=3)
    g.apply("bid 13")
    g.apply("bid 1")  # seat 0 to move again, holding 1..12
    _, visits, value = search_root(GOOF, g.state, mcts_params(700), 4)
    assert (
        visits.sum() == 700
    )  # seat 0 moves first in the round: every simulation starts at its node
    assert visits[12] == 0 and visits[:12].min() > 0
    assert np.all((value >= 0) & (value <= 1))


def test_the_searcher_not_first_in_the_round_still_gets_its_budget():
    g = Game("goofspiel", players=3, seed=3)
    g.apply("bid 5")
    g.apply("bid 6")  # seat 2 to move; the rewound round starts at seat 0's node
    _, visits, _ = search_root(GOOF, g.state, mcts_params(600), 4)
    assert 590 <= visits.sum() <= 600  # all but the simulations that expanded seats 0 and 1


def test_the_arena_plays_mcts_deterministically():
    agents = [agent(MCTS, simulations=50), agent(RANDOM)]
    a = mean_share(GOOF, 2, agents, 20, seed=5)
    b = mean_share(GOOF, 2, agents, 20, seed=5)
    assert a == b


def test_parameters_validate_and_label():
    row = mcts_params(1000)
    assert row.shape == (N_AGENT_PARAMS,) and mcts_label(row) == "mcts:1000"
    assert (
        mcts_label(mcts_params(200, rollout="heuristic", uct_c=1.5))
        == "mcts:200,uct_c=1.5,rollout=heuristic"
    )
    for bad in (
        {"simulations": 0},
        {"simulations": 1.5},
        {"uct_c": 0},
        {"rollout": "greedy"},
        {"rollout_depth": -1},
        {"omniscient": 1},
    ):
        with pytest.raises(MCTSParameterError):
            mcts_params(**bad)


def test_a_row_with_only_the_simulation_count_uses_the_defaults():
    g = Game("goofspiel", players=2, seed=6)
    row = np.zeros(N_AGENT_PARAMS)
    row[0] = 300
    assert np.array_equal(
        search_root(GOOF, g.state, row, 9)[1], search_root(GOOF, g.state, mcts_params(300), 9)[1]
    )


def test_heuristic_rollouts_and_cutoff_evaluation_run():
    g = Game("goofspiel", players=4, seed=2)
    for kw in ({"rollout": "heuristic"}, {"rollout_depth": 3}):
        a, visits, _ = search_root(GOOF, g.state, mcts_params(300, **kw), 1)
        assert visits.sum() == 300 and visits[a] == visits.max()


# ----------------------------------------------------------------------------- no peeking


def _after_hidden_bid(value):
    """Seat 0 has bid ``value`` face down for point card 5 (5 cards, descending); seat 1 to bid."""
    g = Game("goofspiel", players=2, options={"num_cards": 5, "points_order": "descending"})
    g.apply(f"bid {value}")
    return g.state


def test_the_choice_does_not_depend_on_an_earlier_hidden_bid():
    """Seeing seat 0's face-down bid would change seat 1's best bid (bid 2 over a 1, save
    cards against a 5); the search must give the same result whatever that bid is."""
    params = mcts_params(2000)
    for seed in range(4):
        results = [search_root(GOOF, _after_hidden_bid(v), params, seed) for v in range(1, 6)]
        for a, visits, value in results[1:]:
            assert a == results[0][0]
            assert np.array_equal(visits, results[0][1]) and np.array_equal(value, results[0][2])


def test_the_peeking_control_does_depend_on_it():
    """The same search without rewind and determinization (``omniscient``) sees the hidden
    bid and answers it: this is what the test above would catch."""
    params = mcts_params(2000, omniscient=True)
    choices = {
        v: [search_root(GOOF, _after_hidden_bid(v), params, s)[0] for s in range(4)] for v in (1, 3)
    }
    assert choices[1] != choices[3]
    assert set(choices[3]) == {3}  # bid 4 over a 3


@nb.njit
def _leaky_info_key(state, player):
    """A wrong key that lets a seat's node see every pending bid (for the control below)."""
    key = GR.info_key(state, player)
    for p in range(GR.MAX_PLAYERS):
        key = hash64(key, state[GR.PENDING + p])
    return key


def _root_value(kernels, state, sims, seed):
    mask = np.zeros(GOOF.num_actions, np.bool_)
    visits = np.zeros(GOOF.num_actions, np.int64)
    value = np.zeros(GOOF.num_actions)
    search(tuple(kernels), no_nets(), state, mcts_params(sims), new_rng(seed), mask, visits, value)
    return value.max()


def test_opponents_in_the_tree_do_not_see_the_searchers_commit():
    """Seat 0 bids first in a symmetric game (4 cards, descending): its value is 1/2 when
    the opponent's node cannot see seat 0's face-down bid.  With a key that leaks pending
    bids, the opponent's node learns to answer each bid, and seat 0's best root value
    collapses: the search would be needlessly pessimistic."""
    g = Game("goofspiel", players=2, options={"num_cards": 4, "points_order": "descending"})
    leaky = GOOF.kernels._replace(info_key=_leaky_info_key)
    for seed in range(3):
        assert _root_value(GOOF.kernels, g.state, 5000, seed) > 0.4
        assert _root_value(leaky, g.state, 5000, seed) < 0.2


# ----------------------------------------------------------------------------- strength


def test_heuristic_beats_random_on_goofspiel():
    n = 200
    share = mean_share(GOOF, 2, [agent(HEURISTIC), agent(RANDOM)], n, seed=101)
    assert share - half_width(n) > 0.5


def test_mcts_beats_random_with_four_players():
    n = 100
    share = mean_share(GOOF, 4, [agent(MCTS, simulations=300)] + [agent(RANDOM)] * 3, n, seed=102)
    assert share - half_width(n) > 0.25


def test_mcts_beats_the_heuristic_on_goofspiel():
    n = 300
    share = mean_share(GOOF, 2, [agent(MCTS, simulations=3000), agent(HEURISTIC)], n, seed=103)
    assert share - half_width(n) > 0.5


def test_mcts_gets_stronger_with_its_budget():
    n = 200
    share = mean_share(
        GOOF, 2, [agent(MCTS, simulations=1000), agent(MCTS, simulations=100)], n, seed=104
    )
    assert share - half_width(n) > 0.5
